"""The layering rules of docs/architecture.md, checked on the import graph (Python ``ast``).

Every import counts, for the layer rules and for the cycle rule alike: top-level, inside
functions (an import moved into a function hides a cycle, it does not remove it), under
``TYPE_CHECKING``, relative, and string imports through ``importlib.import_module``,
``importlib.util.find_spec`` and ``__import__``.

The composition root names apps as strings and is not an import: ``INSTALLED_APPS`` in
settings and ``include("<app>.urls")`` in the root URLconf.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

BASE = "lightnote"
AGENT = "agent"
DOMAIN_APPS = frozenset({"todos", "notes"})
# Apps on top of the agent that serve it to another kind of client (the MCP server): they use
# lightnote and the agent, reach domain apps only through the agent's registry, and no app
# imports them.
INTERFACE_APPS = frozenset({"mcpserver"})
# Apps built on the domain apps (reminders reads and completes todos): they use lightnote and
# the domain apps' services and selectors, never the agent, and no other app imports them.
FEATURE_APPS = frozenset({"reminders"})
PACKAGES = (BASE, AGENT, *sorted(DOMAIN_APPS), *sorted(INTERFACE_APPS), *sorted(FEATURE_APPS))
# A domain app reaches the agent from this module only (its tools register there); it may be
# a package, whose modules all count as the adapter.
AGENT_ADAPTER = "agent_tools"
_STRING_IMPORTERS = frozenset({"import_module", "find_spec", "__import__"})

# Inside an app, its wings, bottom first: a module may import modules of its own wing and of
# the wings below it, never above. A module in no wing is the app's root (the base for
# every wing) unless it is a composition root, which wires everything and may import any.
# (docs/architecture.md draws them.)
WINGS: dict[str, tuple[tuple[str, ...], ...]] = {
    BASE: (
        ("lightnote.texts",),
        (
            "lightnote.times",
            "lightnote.models",
            "lightnote.errors",
            "lightnote.field_checks",
            "lightnote.text_policy",
            "lightnote.transactions",
            "lightnote.audit",
        ),
        ("lightnote.controlstore",),
        ("lightnote.rest",),
        ("lightnote.impersonation",),
        ("lightnote.pages", "lightnote.templatetags"),
        ("lightnote.accounts",),
        ("lightnote.ops", "lightnote.management"),
    ),
    AGENT: (
        ("agent.access",),
        ("agent.continuations.store", "agent.conversation.pending"),
        ("agent.cards",),
        ("agent.choices",),
        ("agent.continuations",),
        ("agent.conversation",),
        ("agent.api", "agent.web", "agent.templatetags", "agent.management"),
    ),
}
COMPOSITION_ROOTS = frozenset(
    {
        "lightnote.settings",
        "lightnote.test_settings",
        "lightnote.urls",
        "lightnote.admin",
        "lightnote.apps",
        "lightnote.wsgi",
        "lightnote.asgi",
        "agent.apps",
        "agent.urls",
        "agent.admin",
    }
)


@dataclass(frozen=True)
class Import:
    importer: str  # dotted module name
    target: str  # the project module it reaches
    line: int


def project_modules(root: Path, packages: Iterable[str] = PACKAGES) -> dict[str, Path]:
    """Map each dotted module name under ``packages`` to its file."""
    modules: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _resolve(name: str, modules: Mapping[str, Path]) -> str | None:
    """Return the longest prefix of ``name`` that is a project module (None: not ours)."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def _is_package(module: str, modules: Mapping[str, Path]) -> bool:
    return modules[module].name == "__init__.py"


def _absolute(node: ast.ImportFrom, importer: str, modules: Mapping[str, Path]) -> str:
    if not node.level:
        return node.module or ""
    package = importer if _is_package(importer, modules) else importer.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    if not node.module:
        return package
    return f"{package}.{node.module}" if package else node.module


class _Visitor(ast.NodeVisitor):
    def __init__(self, importer: str, modules: Mapping[str, Path]) -> None:
        self.importer = importer
        self.modules = modules
        self.found: list[Import] = []

    def _add(self, name: str, line: int) -> None:
        target = _resolve(name, self.modules)
        if target is not None and target != self.importer:
            self.found.append(Import(self.importer, target, line))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = _absolute(node, self.importer, self.modules)
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            self._add(submodule if submodule in self.modules else base, node.lineno)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name in _STRING_IMPORTERS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                self._add(first.value, node.lineno)
        self.generic_visit(node)


def imports_of(modules: Mapping[str, Path]) -> list[Import]:
    """Every import from one project module to another."""
    found: list[Import] = []
    for name, path in modules.items():
        visitor = _Visitor(name, modules)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        found.extend(visitor.found)
    return found


def _app(module: str) -> str:
    return module.split(".", 1)[0]


def _is_agent_adapter(module: str) -> bool:
    """True for ``<app>.agent_tools`` and, when it is a package, the modules inside it."""
    rest = module.partition(".")[2]
    return rest == AGENT_ADAPTER or rest.startswith(AGENT_ADAPTER + ".")


def layer_rule_broken(imp: Import) -> str | None:
    """Return the rule ``imp`` breaks, or None."""
    source, target = _app(imp.importer), _app(imp.target)
    if source == target:
        return None
    if source == BASE:
        return "the base layer (lightnote) imports no app"
    if target in INTERFACE_APPS:
        return "no app imports an interface app (it sits on top of the agent)"
    if target in FEATURE_APPS:
        return "no app imports a feature app (it sits on top of the domain apps)"
    if source in FEATURE_APPS and target in (AGENT, *INTERFACE_APPS):
        return "a feature app uses the domain apps, never the agent"
    if source in INTERFACE_APPS and target in DOMAIN_APPS:
        return "an interface app reaches domain apps only through the agent's registry"
    if source == AGENT and target in DOMAIN_APPS:
        return "the agent imports no domain app"
    if source in DOMAIN_APPS and target in DOMAIN_APPS:
        return "a domain app never imports another"
    if source in DOMAIN_APPS and target == AGENT and not _is_agent_adapter(imp.importer):
        return f"a domain app imports the agent only from {AGENT_ADAPTER}.py"
    return None


def wing_of(module: str) -> int | None:
    """The wing's level of ``module`` inside its app (0 the lowest); None: the app's root.

    A package's own ``__init__`` belongs to the wing it names; the longest matching prefix
    wins (``agent.continuations.store`` is below ``agent.continuations``)."""
    best: tuple[int, int] | None = None
    for level, prefixes in enumerate(WINGS.get(_app(module), ())):
        for prefix in prefixes:
            matches = module == prefix or module.startswith(prefix + ".")
            if matches and (best is None or len(prefix) > best[1]):
                best = (level, len(prefix))
    return None if best is None else best[0]


def wing_rule_broken(imp: Import) -> str | None:
    """Return the wing rule ``imp`` breaks, or None (imports inside one app only)."""
    app = _app(imp.importer)
    if app != _app(imp.target) or app not in WINGS:
        return None
    if imp.importer in COMPOSITION_ROOTS or ".migrations." in f".{imp.importer}.":
        return None
    source, target = wing_of(imp.importer), wing_of(imp.target)
    if target is None:
        return None  # every wing may use the app's root
    if source is None:
        return f"the {app} root imports no wing ({imp.target} is one)"
    if target > source:
        return "a wing imports only its own wing and the wings below it"
    return None


def layer_violations(imports: Iterable[Import]) -> list[str]:
    """One line per offending import statement and target (``from x import a, b`` is one)."""
    found = (
        f"{imp.importer}:{imp.line} imports {imp.target}: {rule}"
        for imp in imports
        if (rule := layer_rule_broken(imp) or wing_rule_broken(imp)) is not None
    )
    return list(dict.fromkeys(found))


def import_cycles(imports: Iterable[Import], *, exempt: Iterable[str] = ()) -> list[list[str]]:
    """Return each group of modules that import one another (Tarjan's SCCs).

    A module under an ``exempt`` prefix takes no part in the check.
    """
    prefixes = tuple(exempt)

    def counted(module: str) -> bool:
        return not any(module == p or module.startswith(p + ".") for p in prefixes)

    graph: dict[str, set[str]] = {}
    for imp in imports:
        if counted(imp.importer) and counted(imp.target):
            graph.setdefault(imp.importer, set()).add(imp.target)
            graph.setdefault(imp.target, set())
    return [sorted(group) for group in _strongly_connected(graph) if len(group) > 1]


def _strongly_connected(graph: Mapping[str, set[str]]) -> Iterator[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        # Iterative DFS: (node, iterator over its successors).
        work: list[tuple[str, Iterator[str]]] = []
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        work.append((start, iter(sorted(graph[start]))))
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                yield group
