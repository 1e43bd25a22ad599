"""Name resolution and type checking of cint-core-1 (SPEC-04P.1 sections 4 to 14).

``check_program`` takes the parsed root module and returns a :class:`Program`:
the checked tree, annotated in place, with its symbol tables.  The checker

* resolves every name to a :class:`Symbol`,
* gives every expression its static type (``Expr.ty``), typing literals by
  context (SPEC-01 IM-21, SPEC-04 LS-56),
* evaluates every maximal constant expression at compile time with the
  run-time semantics (SPEC-01 IM-23), storing the value in ``Expr.cval``;
  a fault there is C6001,
* rejects what it does not implement yet with C9102 naming the construct.

The first error found is raised as :class:`CompileError`.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from cint_compiler.syntax import tree as A
from cint_compiler.semantics import builtins as B
from cint_compiler.diagnostics import CompileError
from cint_compiler.semantics.types import VOID, Type
from cint_compiler.check.features.containers import ContainerChecks

from cint_compiler.check.symbols import (
    Symbol,
    FuncInfo,
    Program,
    _err,
    Scope,
    FnCtx,
)
from cint_compiler.check.imports import ImportChecks
from cint_compiler.check.typexpr import TypeExprChecks
from cint_compiler.check.stmts import StmtChecks
from cint_compiler.check.flow import FlowChecks
from cint_compiler.check.places import PlaceChecks
from cint_compiler.check.exprs import ExprChecks
from cint_compiler.check.calls import CallChecks
from cint_compiler.check.builtins import BuiltinChecks
from cint_compiler.check.kernels import KernelChecks
from cint_compiler.check.module_state import ModuleStateChecks
from cint_compiler.check.views import ViewChecks
from cint_compiler.check.consteval import ConstEvalChecks
from cint_compiler.check.features import proposed as proposed_check


class Checker(ContainerChecks, ImportChecks, TypeExprChecks, StmtChecks, FlowChecks, PlaceChecks, ExprChecks,
              CallChecks, BuiltinChecks, KernelChecks, ModuleStateChecks, ViewChecks, ConstEvalChecks):
    """The checker of one module, composed of one mixin per concern (docs/architecture.md)."""

    def __init__(self, module: A.Module, modules: Optional[Dict[str, Program]] = None, evaluation=None):
        self.m = module
        # the run-time semantics that evaluates constants (LS-266): the module cint_compiler.interp.context,
        # a layer above the checker, so the pipeline hands it in (ConstEvaluator, CompileTimeContext,
        # CompileTimeBudgetExceeded; check/consteval.py)
        self.evaluation = evaluation
        self.modules = modules if modules is not None else {}   # checked modules by path, for imports
        self.selected = set()          # names bound by `import a.b.{X, y};` (LS-228: C3002 on collision)
        self.path = module.path
        self.modname = module.name
        self.top = Scope()
        self.types: Dict[str, Type] = {}
        self.functions: Dict[str, FuncInfo] = {}
        self.kernels: Dict[str, FuncInfo] = {}
        self.globals: List[Symbol] = []
        self.pending: List[CompileError] = []  # literal range errors waiting for evaluation order
        self.fn: Optional[FnCtx] = None
        self.scope = self.top
        self.kpending = []             # calls from kernels whose callees are not all checked yet
        self.checking = set()          # functions whose bodies are being checked for a constant's call
        self.in_case_item = False      # checking a case item: a constant expression inside a body
        self.const_ctx = None          # the reference context that runs compile-time calls (LS-266)
        self.const_fuel = 0            # fuel-v1 units compile-time calls have used in this module (LS-267)
        self.gargs = []                # (callee, module variable, argument) for C5012 (LS-122)
        self.untyped_memo = {}         # id(node) -> is_untyped(node), so an operator chain is typed in linear time
        self.const_memo = None         # id(node) -> is_const(node) during one fold
        # declarations in progress (pass 1 and 2)
        self.early = None              # constants a bit width or an extent may name before pass 2, by name
        self.early_script = False      # the module is a script (its top-level declarations are locals)
        self.fielding = set()          # structs whose fields are not defined yet (C3006)
        self.computed_syms = set()     # size parameters of the signature being declared that a computed
                                       # extent names (C2065; reset per signature)
        self.containers = []           # the module's arenas and pools (check/features/containers.py)
        # views and Str values (LS-106, LS-253): module-wide ordinals of uses and of the dispatches and swaps
        # that write their arrays (check/views.py, check/features/textops.py)
        self._view_ticks = 0
        self._view_marks = []          # (view or Str Symbol, tick) marked by a dispatch or a swap
        self._swap_spans = set()       # id() of the spans of the swaps among those marks
        self._str_info = None          # id(Str Symbol) -> what it derives from, once a Str is derived
        self._str_lhs = None           # the Name a Str assignment rebinds (not a use of it)

    # ------------------------------------------------------------------ declarations

    def declare(self, scope, name, sym, span):
        if name in B.WRITTEN or name in ("Round",):
            raise _err("C3001", span, "`%s` is a built-in function and cannot be declared again (spec: LS-145)" % name,
                       help="choose another name")
        if name in self.selected:
            raise _err("C3002", span, "`%s` is a name selected by an import (spec: LS-228)" % name)
        if scope.lookup(name) is not None or (scope is not self.top and self.top.lookup(name) is not None):
            raise _err("C3001", span, "`%s` is already declared" % name)
        scope.names[name] = sym

    def run(self) -> Program:
        m = self.m
        self.bind_imports()
        items = m.items
        stmts = [it for it in items if isinstance(it, A.Stmt) and not isinstance(it, A.StaticAssert)]
        is_script = bool(stmts)
        # Pass 1: type-like declarations
        for it in items:
            if isinstance(it, (A.StructDecl, A.EnumDecl, A.ErrorDecl, A.TypeAlias)):
                self.declare(self.top, it.name, Symbol({A.StructDecl: "struct", A.EnumDecl: "enum",
                                                        A.ErrorDecl: "error", A.TypeAlias: "alias"}[type(it)],
                                                       it.name, decl=it, span=it.span), it.span)
        for it in items:
            if isinstance(it, A.EnumDecl):
                self.define_enum(it)
            elif isinstance(it, A.ErrorDecl):
                self.define_error(it)
        for it in items:
            if isinstance(it, A.StructDecl):
                self.define_struct_shell(it)
        # a named constant used by a bit width is declared when the width names it (e_Name, early_const);
        # a struct's `bytes` and `offset` wait for its fields (C3006 before)
        self.early = {}
        for it in items:
            if isinstance(it, A.GlobalDecl) and it.decl.is_const:
                self.early.setdefault(it.decl.name, it)    # a second one is C3001 in pass 2
        self.early_script = is_script
        self.fielding = {self.top.names[it.name].type.qname for it in items if isinstance(it, A.StructDecl)}
        for it in items:
            if isinstance(it, A.TypeAlias):
                self.top.names[it.name].type = self.resolve_type(it.target)
                if it.distinct:      # LS-103 (Proposed), decision 29
                    self.top.names[it.name].type = proposed_check.distinct_type(
                        self, it, self.top.names[it.name].type)
        for it in items:
            if isinstance(it, A.StructDecl):
                self.define_struct_fields(it)
        # Pass 2: functions, kernels, constants, module variables (a constant that a signature's extent
        # names is declared there, as for bit widths)
        for it in items:
            if isinstance(it, (A.FuncDecl, A.KernelDecl)):
                self.declare_function(it)
        self.early = None
        has_main = "main" in self.functions
        if is_script and has_main:
            raise _err("C3011", self.functions["main"].decl.span,
                       "a script cannot also define `main`; move the top-level statements into `main`")
        for it in items:
            if isinstance(it, A.GlobalDecl) and (it.decl.is_const or not is_script):
                if it.decl.is_const and self.top.names.get(it.decl.name) is not None and \
                        self.top.names[it.decl.name].decl is it.decl:
                    continue       # declared early, for a bit width (early_const)
                self.declare_global(it, is_script)
        self.declare_containers(items)
        for it in items:
            if isinstance(it, A.FuncDecl):
                self.check_defaults(self.functions[it.name])
        # Pass 3: bodies
        for it in items:
            if isinstance(it, (A.FuncDecl, A.KernelDecl)):
                info = self.kernels.get(it.name) or self.functions[it.name]
                if not info.kchecked:      # a constant's call may have checked it already (LS-264)
                    self.check_function(info)
            elif isinstance(it, A.TestDecl):
                self.check_test(it)
            elif isinstance(it, A.StaticAssert):
                self.check_static_assert(it)
        self.module_state_args()
        for info, e in self.kpending:
            self.kernel_call_verdict(info, e, final=True)
        self.kpending = []
        tests = [it for it in items if isinstance(it, A.TestDecl)]
        names = set()
        for t in tests:
            if t.name in names:
                raise _err("C3020", t.span, "two tests are named %r" % t.name)
            names.add(t.name)
        script = None
        script_span = None
        if is_script:
            script = [it.decl if isinstance(it, A.GlobalDecl) else it
                      for it in items if isinstance(it, A.Stmt) or (isinstance(it, A.GlobalDecl) and not it.decl.is_const)]
            script = [s for s in script if not isinstance(s, A.StaticAssert)]
            script_span = script[0].span if not isinstance(script[0], A.VarDecl) else self._first_span(script[0])
            self.fn = FnCtx(kind="script", result=VOID)
            self.scope = Scope(self.top)
            for s in script:
                self.stmt(s)
            self.flush_pending()
            self.fn = None
            self.scope = self.top
        decls = {}
        exported = set()
        for it in items:
            if isinstance(it, A.Decl) and not isinstance(it, A.TestDecl) and it.name in self.top.names:
                decls[it.name] = self.top.names[it.name]
                if it.exported:
                    exported.add(it.name)
        prog = Program(m, self.globals, self.functions, self.kernels, tests, script, script_span, self.types,
                       has_main, decls, exported)
        prog.containers = list(self.containers)   # arenas and pools (check/features/containers.py)
        return prog


def check_program(module: A.Module, modules: Optional[Dict[str, Program]] = None, evaluation=None) -> Program:
    """Check one module; ``modules`` holds the checked modules it imports, by path (SPEC-04 section 11);
    ``evaluation`` is the run-time semantics for constants (see Checker)."""
    return Checker(module, modules, evaluation).run()
