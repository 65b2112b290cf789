// Region markers, inserted before inlining so that a region function keeps its
// boundaries when the optimizer inlines it into its caller. Each defined
// function gets a private flag byte, set by the runtime at start-up when the
// function's name matches PERFCAST_COMM_REGION; the entry and every return
// test the flag and call the runtime only when it is set.
#include "CommPass.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

using namespace llvm;

namespace perfcast::commpass {

namespace {

bool is_runtime_function(const Function& f)
{
  return f.getName().starts_with("__pc_");
}

// Calls fn(name) when the flag byte is set, at the builder's position.
void insert_marker(Instruction* before, GlobalVariable* flag, FunctionCallee fn, Constant* name)
{
  IRBuilder<> b(before);
  Value* set = b.CreateICmpNE(b.CreateLoad(b.getInt8Ty(), flag), b.getInt8(0));
  Instruction* then = SplitBlockAndInsertIfThen(set, before, false);
  IRBuilder<> t(then);
  t.CreateCall(fn, {name});
}

} // namespace

PreservedAnalyses RegionMarkerPass::run(Module& m, ModuleAnalysisManager&)
{
  LLVMContext& ctx = m.getContext();
  Type* ptr = PointerType::getUnqual(ctx);
  Type* void_ty = Type::getVoidTy(ctx);
  Type* i32 = Type::getInt32Ty(ctx);
  // the markers touch only the runtime's own state, so they do not stop the
  // optimizer from moving the program's loads and stores around them
  AttributeList attrs = AttributeList().addFnAttribute(ctx, Attribute::NoUnwind);
  attrs = attrs.addFnAttribute(ctx, Attribute::getWithMemoryEffects(ctx, MemoryEffects::inaccessibleMemOnly()));
  FunctionCallee enter = m.getOrInsertFunction("__pc_region_enter", FunctionType::get(void_ty, {ptr}, false), attrs);
  FunctionCallee exit = m.getOrInsertFunction("__pc_region_exit", FunctionType::get(void_ty, {ptr}, false), attrs);

  std::vector<Constant*> entries;
  StructType* entry_ty = StructType::get(ctx, {ptr, ptr});
  std::vector<Function*> functions;
  for (Function& f : m)
    if (!f.isDeclaration() && !is_runtime_function(f))
      functions.push_back(&f);
  for (Function* f : functions) {
    auto* flag = new GlobalVariable(m, Type::getInt8Ty(ctx), false, GlobalValue::PrivateLinkage,
                                    ConstantInt::get(Type::getInt8Ty(ctx), 0), "__pc_rflag." + f->getName());
    flag->setExternallyInitialized(true); // the runtime sets it before main
    IRBuilder<> b(ctx);
    Constant* name = IRBuilder<>(&*f->getEntryBlock().getFirstInsertionPt()).CreateGlobalStringPtr(f->getName(), "__pc_rname");
    std::vector<ReturnInst*> returns;
    for (BasicBlock& bb : *f)
      if (auto* ret = dyn_cast<ReturnInst>(bb.getTerminator()))
        returns.push_back(ret);
    insert_marker(&*f->getEntryBlock().getFirstInsertionPt(), flag, enter, name);
    for (ReturnInst* ret : returns)
      insert_marker(ret, flag, exit, name);
    entries.push_back(ConstantStruct::get(entry_ty, {name, flag}));
  }
  if (entries.empty())
    return PreservedAnalyses::all();
  auto* table_ty = ArrayType::get(entry_ty, entries.size());
  auto* table = new GlobalVariable(m, table_ty, true, GlobalValue::PrivateLinkage,
                                   ConstantArray::get(table_ty, entries), "__pc_region_table");
  FunctionCallee reg =
      m.getOrInsertFunction("__pc_register_functions", FunctionType::get(void_ty, {ptr, i32}, false));
  Function* ctor = Function::Create(FunctionType::get(void_ty, false), GlobalValue::InternalLinkage,
                                    "__pc_module_regions", m);
  IRBuilder<> b(BasicBlock::Create(ctx, "", ctor));
  b.CreateCall(reg, {table, b.getInt32(static_cast<int>(entries.size()))});
  b.CreateRetVoid();
  appendToGlobalCtors(m, ctor, 0);
  return PreservedAnalyses::none();
}

} // namespace perfcast::commpass
