#pragma once
// The perfcast comm pass plugin (LLVM 19, new pass manager): region markers
// before inlining, then the value-flow instrumentation after optimization.
// The runtime it calls is tools/commpass/runtime (see comm_runtime.h).
#include <llvm/IR/PassManager.h>

#include <utility>
#include <vector>

namespace perfcast::commpass {

/// Marks every defined function's entry and returns so the runtime can count region calls.
struct RegionMarkerPass : llvm::PassInfoMixin<RegionMarkerPass> {
  llvm::PreservedAnalyses run(llvm::Module& m, llvm::ModuleAnalysisManager& am);
};

/// Instruments loads, stores, arithmetic, calls and memory copies with shadow value handles.
struct ValueFlowPass : llvm::PassInfoMixin<ValueFlowPass> {
  llvm::PreservedAnalyses run(llvm::Module& m, llvm::ModuleAnalysisManager& am);
};

/// Uninstrumented copies (internal, named NAME.pc_plain) of the functions that can be copied.
std::vector<std::pair<llvm::Function*, llvm::Function*>> copy_functions(const std::vector<llvm::Function*>& functions);

/// Makes each instrumented function call its copy when the runtime's flag __pc_plain is set.
void dispatch_to_copies(llvm::Module& m, const std::vector<std::pair<llvm::Function*, llvm::Function*>>& copies);

} // namespace perfcast::commpass
