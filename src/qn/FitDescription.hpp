#pragma once
// The queueing model as `perfcast fit qn` describes it: what was fitted, each law with its form, the traffic
// structure, the Amdahl baseline, and each training run against its fit.
#include "qn/MeasuredRun.hpp"
#include "qn/QueueingModel.hpp"

#include <string>
#include <vector>

namespace perfcast {

/// The description of a fitted model and its training runs (in fit order, as model.residuals holds them).
std::string describe_fitted_model(const QueueingModel& model, const AmdahlModel& amdahl,
                                  const std::vector<MeasuredRun>& runs);

} // namespace perfcast
