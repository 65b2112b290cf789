// The value-flow instrumentation (CommAnalyzer section 4.1), run after the
// optimizer. Every SSA value that can reach memory gets a shadow: a 64-bit
// handle naming the program values it was computed from (see comm_runtime.h).
// Loads read the shadow memory, arithmetic combines handles, stores create a
// value (or copy one), calls pass handles through a small argument buffer.
// Addresses (GEPs, pointer arithmetic) and branch conditions get no shadow, so
// they are not value flow. A demand analysis first keeps only the values that
// reach a store, a call or a return, so index arithmetic costs nothing.
#include "CommPass.hpp"

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/ADT/SetVector.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include <algorithm>
#include <map>

using namespace llvm;

namespace perfcast::commpass {

namespace {

constexpr unsigned kMaxArgs = 16; // arguments past this carry no shadow (as the runtime's buffer)

/// Types whose values carry a shadow: integers, floating point, vectors and
/// aggregates of them. Pointers do not (addresses are not value flow).
bool is_tracked(Type* t)
{
  if (t->isIntegerTy() || t->isFloatingPointTy())
    return true;
  if (auto* v = dyn_cast<VectorType>(t))
    return is_tracked(v->getElementType());
  if (auto* s = dyn_cast<StructType>(t)) {
    for (Type* e : s->elements())
      if (!is_tracked(e))
        return false;
    return s->getNumElements() > 0;
  }
  if (auto* a = dyn_cast<ArrayType>(t))
    return is_tracked(a->getElementType());
  return false;
}

bool is_scalar(Type* t)
{
  return t->isIntegerTy() || t->isFloatingPointTy();
}

bool is_runtime_call(const CallBase& cb)
{
  const Function* f = cb.getCalledFunction();
  return f && f->getName().starts_with("__pc_");
}

/// The libc copy and fill functions the runtime models (besides the intrinsics).
enum class MemOp { None, Copy, Fill };
MemOp memory_operation(const CallBase& cb)
{
  if (isa<MemTransferInst>(cb))
    return MemOp::Copy;
  if (isa<MemSetInst>(cb))
    return MemOp::Fill;
  const Function* f = cb.getCalledFunction();
  if (!f || !f->isDeclaration() || cb.arg_size() != 3)
    return MemOp::None;
  StringRef n = f->getName();
  if (n == "memcpy" || n == "memmove")
    return MemOp::Copy;
  if (n == "memset")
    return MemOp::Fill;
  return MemOp::None;
}

/// The size in bytes a call to a heap allocator returns, or null for other calls.
Value* allocated_bytes(IRBuilder<>& b, CallBase& cb, Type* i64)
{
  const Function* f = cb.getCalledFunction();
  if (!f || !f->isDeclaration() || !cb.getType()->isPointerTy())
    return nullptr;
  StringRef n = f->getName();
  auto arg = [&](unsigned a) { return b.CreateZExtOrTrunc(cb.getArgOperand(a), i64); };
  if ((n == "malloc" || n == "_Znwm" || n == "_Znam") && cb.arg_size() == 1)
    return arg(0);
  if (n == "calloc" && cb.arg_size() == 2)
    return b.CreateMul(arg(0), arg(1));
  if ((n == "realloc" || n == "aligned_alloc") && cb.arg_size() == 2)
    return arg(1);
  return nullptr;
}

/// Instructions whose shadow is the union of their operands' shadows.
bool is_combining(const Instruction& i)
{
  return isa<BinaryOperator>(i) || isa<UnaryOperator>(i) || isa<CastInst>(i) || isa<ExtractElementInst>(i) ||
         isa<InsertElementInst>(i) || isa<ShuffleVectorInst>(i) || isa<ExtractValueInst>(i) ||
         isa<InsertValueInst>(i) || isa<FreezeInst>(i) || isa<IntrinsicInst>(i);
}

/// Whether the instruction computes (a new value), as opposed to moving one.
bool is_arithmetic(const Instruction& i)
{
  return isa<BinaryOperator>(i) || isa<IntrinsicInst>(i) || isa<CallBase>(i);
}

class Instrumenter {
public:
  Instrumenter(Module& m) : m_(m), ctx_(m.getContext())
  {
    i64_ = Type::getInt64Ty(ctx_);
    i32_ = Type::getInt32Ty(ctx_);
    ptr_ = PointerType::getUnqual(ctx_);
    Type* void_ty = Type::getVoidTy(ctx_);
    AttributeList nounwind = AttributeList().addFnAttribute(ctx_, Attribute::NoUnwind);
    load_ = m.getOrInsertFunction("__pc_load", FunctionType::get(i64_, {ptr_, i32_}, false), nounwind);
    load_range_ = m.getOrInsertFunction("__pc_load_range", FunctionType::get(i64_, {ptr_, i64_}, false), nounwind);
    allocation_ = m.getOrInsertFunction("__pc_allocation", FunctionType::get(Type::getVoidTy(ctx_), {ptr_, i64_}, false),
                                        nounwind);
    store_ = m.getOrInsertFunction("__pc_store", FunctionType::get(void_ty, {ptr_, i32_, i64_}, false), nounwind);
    store_vector_ = m.getOrInsertFunction("__pc_store_vector",
                                          FunctionType::get(void_ty, {ptr_, i32_, i32_, i64_}, false), nounwind);
    copy_ = m.getOrInsertFunction("__pc_copy", FunctionType::get(void_ty, {ptr_, ptr_, i64_}, false), nounwind);
    clear_ = m.getOrInsertFunction("__pc_clear", FunctionType::get(void_ty, {ptr_, i64_}, false), nounwind);
    combine_ = m.getOrInsertFunction("__pc_combine", FunctionType::get(i64_, {i64_, i64_}, false), nounwind);
    combine_many_ =
        m.getOrInsertFunction("__pc_combine_many", FunctionType::get(i64_, {ptr_, i32_}, false), nounwind);
    enter_ = m.getOrInsertFunction("__pc_enter", FunctionType::get(ptr_, {ptr_}, false), nounwind);
    call_begin_ = m.getOrInsertFunction("__pc_call_begin", FunctionType::get(ptr_, {ptr_}, false), nounwind);
    call_result_ =
        m.getOrInsertFunction("__pc_call_result", FunctionType::get(i64_, {ptr_, i64_}, false), nounwind);
    set_ret_ = m.getOrInsertFunction("__pc_set_ret", FunctionType::get(void_ty, {ptr_, i64_}, false), nounwind);
  }

  void instrument(Function& f);
  unsigned long long unhandled() const { return unhandled_; }

private:
  void find_demand(Function& f);
  void find_absorbed(Function& f);
  void collect_sources(Instruction& i, std::vector<Value*>& shadows, bool& arithmetic);
  Value* shadow_of(Value* v);
  Value* fold(IRBuilder<>& b, Instruction& i, bool arithmetic);
  Value* derive(IRBuilder<>& b, Value* shadow);
  void shadow_instruction(Instruction& i);
  void instrument_store(StoreInst& s);
  void instrument_call(CallBase& cb);
  bool is_zero(Value* shadow) const
  {
    auto* c = dyn_cast<ConstantInt>(shadow);
    return c && c->isZero();
  }
  uint64_t size_of(Type* t) const { return m_.getDataLayout().getTypeStoreSize(t).getFixedValue(); }

  Module& m_;
  LLVMContext& ctx_;
  Type* i64_;
  Type* i32_;
  Type* ptr_;
  FunctionCallee allocation_, load_, load_range_, store_, store_vector_, copy_, clear_, combine_, combine_many_, enter_,
      call_begin_, call_result_, set_ret_;
  SetVector<Value*> demanded_;
  SmallPtrSet<Instruction*, 32> absorbed_; ///< combined into their single user's shadow, no shadow of their own
  std::map<Value*, Value*> shadows_;
  std::vector<std::pair<PHINode*, PHINode*>> phis_;
  Function* self_ = nullptr;
  unsigned long long unhandled_ = 0;
};

void Instrumenter::find_demand(Function& f)
{
  demanded_.clear();
  std::vector<Value*> work;
  auto demand = [&](Value* v) {
    if ((isa<Instruction>(v) || isa<Argument>(v)) && is_tracked(v->getType()) && demanded_.insert(v))
      work.push_back(v);
  };
  for (BasicBlock& bb : f)
    for (Instruction& i : bb) {
      if (auto* s = dyn_cast<StoreInst>(&i))
        demand(s->getValueOperand());
      else if (auto* r = dyn_cast<ReturnInst>(&i)) {
        if (r->getReturnValue())
          demand(r->getReturnValue());
      } else if (auto* cb = dyn_cast<CallBase>(&i)) {
        if (!isa<IntrinsicInst>(cb) && !is_runtime_call(*cb))
          for (Value* a : cb->args())
            demand(a);
      }
    }
  while (!work.empty()) {
    Value* v = work.back();
    work.pop_back();
    auto* i = dyn_cast<Instruction>(v);
    if (!i)
      continue;
    if (auto* phi = dyn_cast<PHINode>(i)) {
      for (Value* in : phi->incoming_values())
        demand(in);
    } else if (auto* sel = dyn_cast<SelectInst>(i)) {
      demand(sel->getTrueValue());
      demand(sel->getFalseValue());
    } else if (is_combining(*i)) {
      for (Value* op : i->operands())
        demand(op);
    }
  }
}

Value* Instrumenter::shadow_of(Value* v)
{
  auto it = shadows_.find(v);
  return it == shadows_.end() ? ConstantInt::get(i64_, 0) : it->second;
}

// A handle naming one stored value becomes "derived" when arithmetic uses it,
// so that storing it creates a value instead of copying one (bit 62 set on a
// leaf, whose bit 63 is set; node handles are derived already).
Value* Instrumenter::derive(IRBuilder<>& b, Value* shadow)
{
  if (is_zero(shadow))
    return shadow;
  Value* leaf = b.CreateLShr(shadow, 63);
  return b.CreateOr(shadow, b.CreateShl(leaf, 62));
}

// An arithmetic or conversion instruction whose only use is another
// combining instruction needs no shadow of its own: its user folds its
// operands in directly, so an expression tree costs one runtime call (one
// source set) instead of one per operator.
void Instrumenter::find_absorbed(Function& f)
{
  absorbed_.clear();
  for (BasicBlock& bb : f)
    for (Instruction& i : bb) {
      bool pure_intrinsic = isa<IntrinsicInst>(i) && !isa<MemIntrinsic>(i) && !i.mayHaveSideEffects();
      if (!demanded_.contains(&i) || !is_scalar(i.getType()) || !i.hasOneUse() ||
          !(isa<BinaryOperator>(i) || isa<UnaryOperator>(i) || isa<CastInst>(i) || pure_intrinsic))
        continue;
      auto* user = dyn_cast<Instruction>(*i.user_begin());
      bool folds = user && demanded_.contains(user) && is_combining(*user) &&
                   (!isa<CallBase>(user) || isa<IntrinsicInst>(user)) && !isa<MemIntrinsic>(user);
      if (folds)
        absorbed_.insert(&i);
    }
}

// The shadows an instruction's value is computed from, looking through the
// absorbed instructions among its operands (and whether any of them computes).
void Instrumenter::collect_sources(Instruction& i, std::vector<Value*>& shadows, bool& arithmetic)
{
  auto add = [&](Value* op) {
    if (!is_tracked(op->getType()))
      return;
    if (auto* inner = dyn_cast<Instruction>(op); inner && absorbed_.contains(inner)) {
      arithmetic |= is_arithmetic(*inner) || isa<UnaryOperator>(inner);
      collect_sources(*inner, shadows, arithmetic);
      return;
    }
    Value* s = shadow_of(op);
    if (!is_zero(s) && std::find(shadows.begin(), shadows.end(), s) == shadows.end())
      shadows.push_back(s);
  };
  if (auto* cb = dyn_cast<CallBase>(&i)) {
    for (Value* a : cb->args())
      add(a);
  } else {
    for (Value* op : i.operands())
      add(op);
  }
}

Value* Instrumenter::fold(IRBuilder<>& b, Instruction& i, bool arithmetic)
{
  std::vector<Value*> shadows;
  collect_sources(i, shadows, arithmetic);
  if (shadows.empty())
    return ConstantInt::get(i64_, 0);
  if (shadows.size() == 1)
    return arithmetic ? derive(b, shadows[0]) : shadows[0];
  if (shadows.size() == 2)
    return b.CreateCall(combine_, {shadows[0], shadows[1]});
  // three or more: one call over an array of handles in the caller's frame
  IRBuilder<> entry(&*self_->getEntryBlock().getFirstInsertionPt());
  Value* array = entry.CreateAlloca(ArrayType::get(i64_, shadows.size()));
  for (std::size_t k = 0; k < shadows.size(); ++k)
    b.CreateStore(shadows[k], b.CreateConstGEP2_64(ArrayType::get(i64_, shadows.size()), array, 0, k));
  return b.CreateCall(combine_many_, {array, ConstantInt::get(i32_, shadows.size())});
}

void Instrumenter::shadow_instruction(Instruction& i)
{
  if (auto* phi = dyn_cast<PHINode>(&i)) {
    IRBuilder<> b(i.getParent(), i.getParent()->getFirstNonPHIIt());
    PHINode* sh = b.CreatePHI(i64_, phi->getNumIncomingValues());
    phis_.emplace_back(phi, sh);
    shadows_[&i] = sh;
    return;
  }
  if (i.isTerminator() || isa<LandingPadInst>(i) || absorbed_.contains(&i))
    return; // invoke results keep no shadow (see instrument_call); absorbed ones are folded into their user
  IRBuilder<> b(i.getNextNode());
  Value* sh = nullptr;
  if (auto* ld = dyn_cast<LoadInst>(&i)) {
    Type* t = ld->getType();
    uint64_t size = size_of(t);
    if (is_scalar(t) && size <= 16)
      sh = b.CreateCall(load_, {ld->getPointerOperand(), ConstantInt::get(i32_, size)});
    else
      sh = b.CreateCall(load_range_, {ld->getPointerOperand(), ConstantInt::get(i64_, size)});
  } else if (auto* sel = dyn_cast<SelectInst>(&i)) {
    Value* t = shadow_of(sel->getTrueValue());
    Value* f = shadow_of(sel->getFalseValue());
    sh = t == f ? t : b.CreateSelect(sel->getCondition(), t, f);
  } else if (auto* cb = dyn_cast<CallBase>(&i); cb && !isa<IntrinsicInst>(cb)) {
    return; // instrument_call sets it
  } else if (is_combining(i)) {
    sh = fold(b, i, is_arithmetic(i) || isa<UnaryOperator>(i));
  }
  if (sh)
    shadows_[&i] = sh;
}

void Instrumenter::instrument_store(StoreInst& s)
{
  Value* v = s.getValueOperand();
  Type* t = v->getType();
  if (!is_tracked(t))
    return; // a stored pointer is an address, not a value
  IRBuilder<> b(&s);
  uint64_t size = size_of(t);
  auto* ld = dyn_cast<LoadInst>(v);
  if (!is_scalar(t) && ld && ld->getParent() == s.getParent()) {
    // an aggregate or vector moved unchanged is a copy, if nothing wrote memory in between
    bool clean = true;
    for (Instruction* k = ld->getNextNode(); k && k != &s; k = k->getNextNode())
      if (k->mayWriteToMemory() && !(isa<CallBase>(k) && is_runtime_call(*cast<CallBase>(k))))
        clean = false;
    if (clean) {
      b.CreateCall(copy_, {s.getPointerOperand(), ld->getPointerOperand(), ConstantInt::get(i64_, size)});
      return;
    }
  }
  if (is_scalar(t) && size <= 16) {
    b.CreateCall(store_, {s.getPointerOperand(), ConstantInt::get(i32_, size), shadow_of(v)});
    return;
  }
  // vectors and aggregates computed in registers: every element becomes a
  // value computed from all the sources of the whole vector (an over-approximation)
  uint64_t elements = 1;
  if (auto* vt = dyn_cast<FixedVectorType>(t))
    elements = vt->getNumElements();
  else
    ++unhandled_;
  b.CreateCall(store_vector_, {s.getPointerOperand(), ConstantInt::get(i32_, size / elements),
                               ConstantInt::get(i32_, elements), shadow_of(v)});
}

void Instrumenter::instrument_call(CallBase& cb)
{
  if (is_runtime_call(cb))
    return;
  if (cb.isInlineAsm()) {
    ++unhandled_;
    return;
  }
  if (!isa<InvokeInst>(cb)) {
    // a heap block: record where it lives, so values can name their array
    IRBuilder<> after(cb.getNextNode());
    if (Value* bytes = allocated_bytes(after, cb, i64_))
      after.CreateCall(allocation_, {&cb, bytes});
  }
  IRBuilder<> b(&cb);
  switch (memory_operation(cb)) {
  case MemOp::Copy:
    b.CreateCall(copy_, {cb.getArgOperand(0), cb.getArgOperand(1), b.CreateZExtOrTrunc(cb.getArgOperand(2), i64_)});
    return;
  case MemOp::Fill:
    b.CreateCall(clear_, {cb.getArgOperand(0), b.CreateZExtOrTrunc(cb.getArgOperand(2), i64_)});
    return;
  case MemOp::None:
    break;
  }
  if (isa<IntrinsicInst>(cb))
    return; // a combining instruction, shadowed by shadow_instruction
  bool result_needed = demanded_.contains(&cb);
  bool args_needed = false;
  for (unsigned a = 0; a < cb.arg_size() && a < kMaxArgs; ++a)
    if (is_tracked(cb.getArgOperand(a)->getType()) && !is_zero(shadow_of(cb.getArgOperand(a))))
      args_needed = true;
  if (!result_needed && !args_needed)
    return;
  Value* callee = cb.getCalledOperand();
  Value* buffer = b.CreateCall(call_begin_, {callee});
  for (unsigned a = 0; a < cb.arg_size() && a < kMaxArgs; ++a)
    if (is_tracked(cb.getArgOperand(a)->getType()))
      b.CreateStore(shadow_of(cb.getArgOperand(a)), b.CreateConstGEP1_64(i64_, buffer, a));
  if (!result_needed)
    return;
  // an external (uninstrumented) callee produces its result from its arguments
  auto* known = dyn_cast<Function>(callee);
  Value* fallback = known && !known->isDeclaration() ? ConstantInt::get(i64_, 0) : fold(b, cb, true);
  if (isa<InvokeInst>(cb)) {
    shadows_[&cb] = fallback;
    return;
  }
  IRBuilder<> after(cb.getNextNode());
  shadows_[&cb] = after.CreateCall(call_result_, {callee, fallback});
}

void Instrumenter::instrument(Function& f)
{
  self_ = &f;
  shadows_.clear();
  phis_.clear();
  find_demand(f);
  find_absorbed(f);
  std::vector<Instruction*> order;
  ReversePostOrderTraversal<Function*> rpo(&f);
  for (BasicBlock* bb : rpo)
    for (Instruction& i : *bb)
      order.push_back(&i);

  // arguments: read at entry when the caller passed shadows for this function
  bool wants_args = false;
  for (Argument& a : f.args())
    if (a.getArgNo() < kMaxArgs && demanded_.contains(&a))
      wants_args = true;
  if (wants_args) {
    IRBuilder<> b(&*f.getEntryBlock().getFirstInsertionPt());
    Value* buffer = b.CreateCall(enter_, {&f});
    for (Argument& a : f.args())
      if (a.getArgNo() < kMaxArgs && demanded_.contains(&a))
        shadows_[&a] = b.CreateLoad(i64_, b.CreateConstGEP1_64(i64_, buffer, a.getArgNo()));
  }

  for (Instruction* i : order) {
    if (isa<AtomicRMWInst>(i) || isa<AtomicCmpXchgInst>(i)) {
      ++unhandled_;
      continue;
    }
    if (demanded_.contains(i))
      shadow_instruction(*i);
    if (auto* s = dyn_cast<StoreInst>(i))
      instrument_store(*s);
    else if (auto* cb = dyn_cast<CallBase>(i))
      instrument_call(*cb);
    else if (auto* r = dyn_cast<ReturnInst>(i); r && r->getReturnValue() && is_tracked(r->getReturnValue()->getType())) {
      IRBuilder<> b(r);
      b.CreateCall(set_ret_, {&f, shadow_of(r->getReturnValue())});
    }
  }
  for (auto& [phi, sh] : phis_)
    for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k)
      sh->addIncoming(shadow_of(phi->getIncomingValue(k)), phi->getIncomingBlock(k));
}

} // namespace

PreservedAnalyses ValueFlowPass::run(Module& m, ModuleAnalysisManager&)
{
  Instrumenter ins(m);
  std::vector<Function*> functions;
  for (Function& f : m)
    if (!f.isDeclaration() && !f.getName().starts_with("__pc_"))
      functions.push_back(&f);
  auto copies = copy_functions(functions);
  for (Function* f : functions)
    ins.instrument(*f);
  dispatch_to_copies(m, copies);
  LLVMContext& ctx = m.getContext();
  FunctionCallee reg = m.getOrInsertFunction(
      "__pc_register_module",
      FunctionType::get(Type::getVoidTy(ctx), {PointerType::getUnqual(ctx), Type::getInt64Ty(ctx)}, false));
  Function* ctor = Function::Create(FunctionType::get(Type::getVoidTy(ctx), false), GlobalValue::InternalLinkage,
                                    "__pc_module_init", m);
  IRBuilder<> b(BasicBlock::Create(ctx, "", ctor));
  b.CreateCall(reg, {b.CreateGlobalStringPtr(m.getSourceFileName()), b.getInt64(ins.unhandled())});
  b.CreateRetVoid();
  appendToGlobalCtors(m, ctor, 0);
  return PreservedAnalyses::none();
}

} // namespace perfcast::commpass

extern "C" LLVM_ATTRIBUTE_WEAK ::llvm::PassPluginLibraryInfo llvmGetPassPluginInfo()
{
  using namespace perfcast::commpass;
  return {LLVM_PLUGIN_API_VERSION, "perfcast-comm", "1", [](llvm::PassBuilder& pb) {
            pb.registerPipelineStartEPCallback(
                [](llvm::ModulePassManager& mpm, llvm::OptimizationLevel) { mpm.addPass(RegionMarkerPass()); });
            pb.registerOptimizerLastEPCallback(
                [](llvm::ModulePassManager& mpm, llvm::OptimizationLevel) { mpm.addPass(ValueFlowPass()); });
          }};
}
