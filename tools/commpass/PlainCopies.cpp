// Plain copies of the instrumented functions, so that `perfcast comm run` can
// time an uninstrumented run of the same binary (PERFCAST_COMM_PLAIN=1) and
// measure what a value costs: every function is copied before it is
// instrumented, and its instrumented body then starts with a test of the
// runtime's flag __pc_plain that calls the copy instead. The copies keep the
// region markers, so the runtime can time the region in a plain run.
#include "CommPass.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Cloning.h>

using namespace llvm;

namespace perfcast::commpass {

namespace {

// Functions whose arguments cannot simply be passed on to a copy.
bool copyable(const Function& f)
{
  if (f.isVarArg() || f.hasFnAttribute(Attribute::Naked))
    return false;
  for (const Argument& a : f.args())
    if (a.hasInAllocaAttr() || a.hasPreallocatedAttr() || a.hasSwiftErrorAttr())
      return false;
  return true;
}

} // namespace

std::vector<std::pair<Function*, Function*>> copy_functions(const std::vector<Function*>& functions)
{
  std::vector<std::pair<Function*, Function*>> copies;
  for (Function* f : functions) {
    if (!copyable(*f))
      continue;
    ValueToValueMapTy map;
    Function* plain = CloneFunction(f, map);
    plain->setName(f->getName() + ".pc_plain");
    plain->setLinkage(GlobalValue::InternalLinkage);
    plain->setComdat(nullptr);
    copies.emplace_back(f, plain);
  }
  return copies;
}

void dispatch_to_copies(Module& m, const std::vector<std::pair<Function*, Function*>>& copies)
{
  LLVMContext& ctx = m.getContext();
  Type* i8 = Type::getInt8Ty(ctx);
  Constant* flag = m.getOrInsertGlobal("__pc_plain", i8);
  for (auto [f, plain] : copies) {
    BasicBlock* body = &f->getEntryBlock();
    BasicBlock* test = BasicBlock::Create(ctx, "pc.dispatch", f, body);
    BasicBlock* call_plain = BasicBlock::Create(ctx, "pc.plain", f, body);
    IRBuilder<> b(test);
    b.CreateCondBr(b.CreateICmpNE(b.CreateLoad(i8, flag), b.getInt8(0)), call_plain, body);
    IRBuilder<> p(call_plain);
    std::vector<Value*> args;
    for (Argument& a : f->args())
      args.push_back(&a);
    CallInst* call = p.CreateCall(plain, args);
    call->setCallingConv(f->getCallingConv());
    // the arguments' and result's attributes (byval, sret, ...), not the function's
    AttributeList attrs = f->getAttributes();
    SmallVector<AttributeSet, 8> params;
    for (unsigned k = 0; k < f->arg_size(); ++k)
      params.push_back(attrs.getParamAttrs(k));
    call->setAttributes(AttributeList::get(ctx, AttributeSet(), attrs.getRetAttrs(), params));
    if (f->getReturnType()->isVoidTy())
      p.CreateRetVoid();
    else
      p.CreateRet(call);
  }
}

} // namespace perfcast::commpass
