#pragma once
// The perfcast comm pass plugin (LLVM 19, new pass manager): region markers
// before inlining, then the value-flow instrumentation after optimization.
// The runtime it calls is tools/commpass/runtime (see comm_runtime.h).
#include <llvm/IR/PassManager.h>

namespace perfcast::commpass {

/// Marks every defined function's entry and returns so the runtime can count region calls.
struct RegionMarkerPass : llvm::PassInfoMixin<RegionMarkerPass> {
  llvm::PreservedAnalyses run(llvm::Module& m, llvm::ModuleAnalysisManager& am);
};

/// Instruments loads, stores, arithmetic, calls and memory copies with shadow value handles.
struct ValueFlowPass : llvm::PassInfoMixin<ValueFlowPass> {
  llvm::PreservedAnalyses run(llvm::Module& m, llvm::ModuleAnalysisManager& am);
};

} // namespace perfcast::commpass
