"""The size of a goal (seed 001 decision 7): is it coarse, what are its stages, which route?

A goal is *coarse* (route it to a multi-stage workflow) when it names more than five files,
three or more modules, or uses an architecture word; its stages are split from the text
("then", list items, "；", "然后" …); its route is ``architecture`` when the goal changes the
code's structure (restructure, refactor, split or merge modules, 重构, 架构 …), else
``idea-to-ship``. Kept apart from ``detect`` (is there a goal at all?) because the two answer
different questions with different vocabularies. Pure; no I/O; never raises.
"""

from __future__ import annotations

import re

from goalkeeper.core.goals.goal import COARSE_ROUTE
from goalkeeper.core.text.lazy_re import lazy_re
from goalkeeper.core.text.mdcode import blank_spans, inline_code_spans


def _words(text: str) -> frozenset[str]:
    """A word list written as prose: easier to read and extend than a column of strings."""
    return frozenset(text.split())


MAX_FILES = 5
"""Seed 001 decision 7: a goal naming more than five files is coarse."""
MIN_MODULES = 3
"""What "several modules" means: one module is a fix, two is a fix and its caller, three is a
change across the system."""

# ---------------------------------------------------------------------------------------------
# Coarseness vocabulary
# ---------------------------------------------------------------------------------------------

_ARCH = lazy_re(
    r"(?<![A-Za-z])(?:architect\w*|re-?architect\w*|re-?design\w*|re-?writ\w*|"
    r"migrat(?:e|es|ed|ing)(?![A-Za-z])|migrations?\s+(?:to|from|of|off)|"
    r"overhaul\w*|end-to-end\s+system|multi-?module|multi-?package|"
    r"(?:multiple|several|many)\s+(?:modules|packages|services|components|subsystems)|"
    r"across\s+(?:all\s+|the\s+|multiple\s+|several\s+)?(?:modules|packages|services|codebase)|"
    r"(?:whole|entire)\s+(?:codebase|code\s+base|system|project|application|repo|repository)|"
    r"from\s+scratch|large-scale|system-wide|codebase-wide)(?![A-Za-z])"
    r"|架构|重构|迁移(?![都能也均已]|文件|脚本|记录)|多模块|整体|重写|全面改造|系统性|跨模块|"
    r"多个模块|各个模块|所有模块|端到端系统|从零开始|推倒重来|整个项目|整个系统",
    re.IGNORECASE,
)
_PATH_TOKEN = lazy_re(r"[A-Za-z0-9_.~/\\-]+")
_EXTENSION = lazy_re(
    r"[A-Za-z0-9_-]\.(?:py|pyi|js|jsx|ts|tsx|mjs|cjs|go|rs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|"
    r"swift|scala|sh|md|rst|txt|json|ya?ml|toml|ini|cfg|html|css|scss|vue|svelte|sql|proto|xml|"
    r"gradle|lock)$",
    re.IGNORECASE,
)
_NOT_FILES = frozenset(
    {"node.js", "vue.js", "next.js", "nuxt.js", "react.js", "express.js", "three.js", "d3.js"}
    | {"chart.js", "ember.js", "angular.js", "backbone.js", "nest.js", "deno.js"}
)
_MODULE_NAMED = lazy_re(
    r"(?<![A-Za-z0-9_-])([A-Za-z][\w.-]*)\s+"
    r"(?:module|package|service|crate|component|subsystem|library)(?![A-Za-z])",
    re.IGNORECASE | re.ASCII,
)
# Lists before a plural ("the auth, billing and search modules", "认证、计费和搜索模块") are read
# backwards from the plural by hand over a bounded window: a regex for "name (, name)* and name"
# backtracks quadratically on a long comma-separated line.
_PLURAL = lazy_re(
    r"(?<![A-Za-z])(?:modules|packages|services|crates|components|subsystems|libraries)"
    r"(?![A-Za-z])",
    re.IGNORECASE,
)
_LIST_TOKEN = lazy_re(r"[A-Za-z][\w.-]*|[,&]", re.ASCII)
_LIST_JOINERS = frozenset({",", "&", "and", "or"})
_LIST_WINDOW = 200
_MODULE_ROOT = lazy_re(
    r"(?<![\w/.-])(?:packages|apps|modules|services|crates|libs|internal|cmd|pkg)/([\w.-]+)",
    re.ASCII,
)
_ZH_NAME = r"(?:(?<![A-Za-z0-9_-])[A-Za-z0-9_-]+|[\u4e00-\u9fff]{1,4}?)"
_ZH_MODULE_WORD = r"(?:模块|子系统|组件|服务(?!器))"
_MODULE_ZH = lazy_re(rf"({_ZH_NAME})\s*{_ZH_MODULE_WORD}")
_ZH_PLURAL = lazy_re(_ZH_MODULE_WORD)
_ZH_BREAK = lazy_re(r"[。！？；;：:\n（）()]")
_ZH_SPLIT = lazy_re(r"\s*(?:[、，,]|以及|和|及|与)\s*")
_NOT_MODULES = _words(
    "the a an this that these those each every any one single new same other another which "
    "whole entire main python node npm go rust java js typescript javascript pip pypi its our "
    "their my your"
)

# ---------------------------------------------------------------------------------------------
# Routes
# ---------------------------------------------------------------------------------------------

ARCHITECTURE_ROUTE = "architecture"
"""The built-in catalog's route for changing the code's structure; any other coarse goal is
worked through ``COARSE_ROUTE`` (idea-to-ship)."""

# An architecture goal has a shape more than a vocabulary: it changes how units of code are cut
# (split, merge, extract, flatten … a module, a layer, a class), or which unit may reach which
# (depends on, imports, calls directly, goes through, only one way), or it names structural debt
# (a global singleton, a god class, copies of one thing). A feature names the same units but
# asks for something new for the user, so the relation rules are read only in a goal that does
# not open by asking for something new or a move to something else.

# A word that always means the code's structure changes. "architecture" counts unless it is the
# frame the work follows ("following the existing architecture", "按现有架构").
_STRUCTURE_CHANGE = lazy_re(
    r"(?<![A-Za-z])(?:restructur\w*|refactor\w*|re-?architect\w*|decoupl\w*|"
    r"modulari[sz]\w*|de-?modulari[sz]\w*|untangl\w*|hexagonal|ports?[- ]and[- ]adapters|"
    r"circular\s+(?:imports?|dependenc\w*)|(?:import|dependency)\s+cycles?|"
    r"invert\w*\s+(?:the\s+|this\s+|that\s+)?dependenc\w*|dependency\s+(?:inversion|injection)|"
    r"god\s+(?:class|object)\w*|separation\s+of\s+concerns|single[- ]responsibility|"
    r"global\s+(?:[\w-]+\s+){0,2}(?:singletons?|state|variables?|objects?)|singletons?|"
    r"composition\s+over\s+inheritance|big\s+ball\s+of\s+mud|"
    r"(?:reduc|loosen|lower|minimi[sz]|cut)\w*\s+(?:the\s+)?coupling|loose(?:ly)?[- ]coupl\w*|"
    r"(?:shrink|narrow|trim|reduc)\w*\s+(?:\S+\s+){0,4}?(?:API\s+)?surface|"
    r"(?:remov|drop)\w*\s+(?:\S+\s+){0,3}?imports?)(?![A-Za-z])"
    r"|(?<!existing )(?<!current )(?<!same )(?<!following )(?<![A-Za-z])architect(?:ure|ural)\w*"
    r"|重构|解耦|模块化|循环依赖|循环引用|依赖倒置|依赖反转|依赖注入|单例|全局变量|全局状态|上帝类"
    r"|职责分离|单一职责|(?:降低|减少|减小|解除)\S{0,12}耦合|松耦合|关注点分离|(?<!现有)(?<!当前)(?<!既有)(?<!已有)(?<!按照)(?<!遵循)架构",
    re.IGNORECASE,
)
# A verb that changes structure only when its object is a unit of structure: "split the
# monolith into services" is architecture, "redesign the checkout page" a feature.
_STRUCTURE_VERB = lazy_re(
    r"(?<![A-Za-z])(?:re-?design\w*|split\w*|merg(?:e|es|ed|ing)|extract\w*|consolidat\w*|"
    r"reorgani[sz]\w*|rework\w*|reshap\w*|deepen\w*|unif(?:y|ies|ied|ying)|carve\s+out|"
    r"(?:pull|move|moving|moved|break|breaking|broke|turn|turning|carve|cut|get|take|fold)\s+"
    r"(?:\S+\s+){0,6}?(?:out|up|apart|into)|rearrang\w*|gather\w*|"
    r"(?:wrap|hide|hiding|put|isolat\w*)\s+(?:\S+\s+){0,6}?behind|introduc\w*|flatten\w*|"
    r"decompos\w*|encapsulat\w*|centrali[sz]\w*|factor\w*\s+(?:\S+\s+){0,4}?(?:out|into)|"
    r"collaps\w*|combin\w*|separat\w*|isolat\w*|invert\w*)(?![A-Za-z])"
    r"|重新设计|拆分|拆成|拆开|合并|合到|合成|并入|抽取|提取|抽出|抽离|剥离|整合|重组|理顺|加深|重新划分"
    r"|收拢|收敛|归并|封装|下沉|分离|隔离|分开|移到|挪到|移出|拆到|重新组织",
    re.IGNORECASE,
)
_STRUCTURE_UNIT = lazy_re(
    r"(?<![A-Za-z])(?:modules?|packages?|layers?|services?|components?|boundar(?:y|ies)|"
    r"interfaces?|codebase|code\s+base|crates?|subsystems?|monolith\w*|seams?|"
    r"dependency\s+graph|module\s+structure|project\s+structure|shared\s+kernel|"
    r"depend(?:s|ing)?\s+on\s+each\s+other|circular\s+(?:imports?|dependenc\w*)|"
    r"class(?:es)?|responsibilit(?:y|ies)|inheritance|(?:class|package)\s+hierarch\w*|"
    r"adapters?|facades?|bounded\s+contexts?|(?:business|domain|core|presentation|validation)\s+logic|"
    r"data\s+access|side[- ]effects|I/O|(?:shared|common)\s+(?:library|package|module)|"
    r"source\s+tree|(?:feature|package)\s+folders?|call\s+sites?|"
    r"(?:into|in)\s+its\s+own\s+(?:worker|process|deployable|file|folder|repo\w*))(?![A-Za-z])"
    r"|模块|分层|层次|(?<![楼])层(?!级)|包结构|子系统|组件|服务(?!器)|边界|接口|代码库|单体|目录结构"
    r"|职责|适配器|(?<![这那各某同一两几多此该分种门])类(?![型似别])|(?:业务|计算|校验|核心)逻辑|共享库|公共库"
    r"|(?<![A-Za-z])IO(?![A-Za-z])|分包|各自的(?:文件|包|目录)",
    re.IGNORECASE,
)
# Consolidation: copies of one thing made into one ("the three copies of the retry logic",
# "重复的重试逻辑收敛到一个公共库"); a verb of merging alone may merge two UI elements.
_DEDUPLICATE = lazy_re(r"(?<![A-Za-z])(?:de-?dup\w*|de-?duplicat\w*)(?![A-Za-z])|去重", re.I)
_CONSOLIDATE = lazy_re(
    r"(?<![A-Za-z])(?:merg\w*|consolidat\w*|combin\w*|unif\w*|collaps\w*|fold\w*|gather\w*)"
    r"(?![A-Za-z])|合并|合到|合成|收敛|归并|收拢|抽取|提取|统一成|统一的",
    re.IGNORECASE,
)
# Copies by name (always code) and copies by look (scattered, nearly identical: code only when
# a unit of code is named too; "各处的提示文案统一成一种语气" is the copy of the UI).
_COPIES = lazy_re(
    r"(?<![A-Za-z])(?:cop(?:y|ies)\s+of|duplicat\w*|repeated|slightly\s+different|"
    r"hand-?rolled|copy-?(?:and-?)?past\w*|copied)(?![A-Za-z])|重复|多份|几份|复制粘贴"
    r"|[几多两三四五六七八九\d]+种(?:写法|实现|做法)",
    re.IGNORECASE,
)
_LOOKALIKES = lazy_re(
    r"(?<![A-Za-z])(?:(?:nearly|almost)\s+identical|identical|competing|scattered|"
    r"all\s+over\s+the\s+place|everywhere)(?![A-Za-z])|散落|各处|到处|几乎一样|一模一样",
    re.IGNORECASE,
)

# How units relate (who depends on, imports or calls whom, what goes through or behind what)
# and the rules put on it (only, never, no longer, 不能, 只能): a goal made of these and of units
# of code is about the structure.
_STRUCTURE_RELATION = lazy_re(
    r"(?<![A-Za-z])(?:depend(?:s|ed|ing|ency|encies)?|independen\w*|seams?|interfaces?|"
    r"boundar(?:y|ies)|coupl(?:ed|ing)|layering|imports?|importing|call(?:s|ed|ing)?|"
    r"directly|reach(?:es|ing)?\s+into|through|behind|between|owns?|its\s+own|"
    r"one-?way|downward|upward|(?:the\s+)?other\s+way\s+(?:round|around)|plug\s+into|"
    r"know(?:s|ing)?\s+(?:nothing|anything)\s+about|(?:publish|emit)\w*\s+events)(?![A-Za-z])"
    r"|依赖|边界|接口|耦合|反向|反过来|单向|互相|直接|引用|调用|访问|通过|经过|走(?=\S{0,4}统一)",
    re.IGNORECASE,
)
_CODE_UNIT = lazy_re(
    r"(?<![A-Za-z])(?:handlers?|controllers?|views?|models?|ORM|SDKs?|clients?|backends?|"
    r"repositor(?:y|ies)|core|domain|infra(?:structure)?|kernel|frameworks?|callers?|"
    r"tables?|handling|functions?|state\s+(?:stores?|management)|caches?)(?![A-Za-z])"
    r"|控制器|仓储|框架|中间件|领域|核心|公共库|(?<![数])库(?![存])|包(?![括含装])|数据库|函数|缓存",
    re.IGNORECASE,
)
_STRUCTURE_RULE = lazy_re(
    r"(?<![A-Za-z])(?:never|no\s+longer|must\s+not|may\s+not|cannot|can't|only|stop\w*|"
    r"nothing|instead\s+of|independent\s+of|no\s+\w+(?:\s+\w+){0,3}\s+may|"
    r"know(?:s|ing)?\s+nothing\s+about)(?![A-Za-z])"
    r"|不再|不能|只能|禁止|不得|不允许|消除|去掉",
    re.IGNORECASE,
)
_FEATURE_LEAD = lazy_re(
    r"^\W*(?:(?:goal|目标)\s*[:：]\s*)?(?:add|adds|adding|implement\w*|build\w*|ship\w*|"
    r"creat\w*|support\w*|write|writ\w*|design(?:s|ing)?\s+a\s+new|migrat\w*|port|"
    r"porting|upgrad\w*|实现|添加|加上|新增|开发|做一个|为|迁移|升级|支持)",
    re.IGNORECASE,
)
STRUCTURE_SIGNS = 3
"""Relations, rules and units of code a goal must name (one relation at least) to be read as a
structural one: "service dependency map" (2) is a feature, "views may no longer query the
database directly" (4) is not."""


def route_for(text: str) -> str:
    """The route a coarse goal is worked through (seed 001 decision 7 with the catalog's routes,
    seed 003): ``architecture`` when it changes the code's structure — a structure word
    (restructure, refactor, decouple, dependency inversion, a global singleton, 重构, 架构 …),
    a verb such as redesign, split, merge, extract, flatten, wrap … behind (拆分, 合并, 收拢 …)
    applied to modules, layers, services, classes or boundaries, copies of one thing merged
    into one, or how units of code reach each other (depends on, imports, calls directly, only
    one way, 依赖, 不能直接访问) in a goal that does not open by asking for something new or a
    migration — else ``idea-to-ship``. Text in backticks (a command) is not read. Never
    raises."""
    masked = mask_inline(text)
    if _STRUCTURE_CHANGE.search(masked):
        return ARCHITECTURE_ROUTE
    if _STRUCTURE_VERB.search(masked) and _STRUCTURE_UNIT.search(masked):
        return ARCHITECTURE_ROUTE
    if _FEATURE_LEAD.match(masked):
        return COARSE_ROUTE
    if _DEDUPLICATE.search(masked) or (_CONSOLIDATE.search(masked) and _COPIES.search(masked)):
        return ARCHITECTURE_ROUTE
    if _CONSOLIDATE.search(masked) and _LOOKALIKES.search(masked) and _names_code(masked):
        return ARCHITECTURE_ROUTE
    relations = len(_STRUCTURE_RELATION.findall(masked))
    if relations:
        units = len(_STRUCTURE_UNIT.findall(masked)) + len(_CODE_UNIT.findall(masked))
        if relations + units + len(_STRUCTURE_RULE.findall(masked)) >= STRUCTURE_SIGNS:
            return ARCHITECTURE_ROUTE
    return COARSE_ROUTE


def _names_code(text: str) -> bool:
    """A unit of code is named (a module, a layer, handlers, a cache …)."""
    return bool(_STRUCTURE_UNIT.search(text) or _CODE_UNIT.search(text))


# ---------------------------------------------------------------------------------------------
# Stages
# ---------------------------------------------------------------------------------------------

_LIST_MARK = r"(?:(?:\d{1,3}[.)]|[(（]\d{1,3}[)）]|[-*+•])[ \t]+|\d{1,3}、[ \t]*)"
_STAGE_SEP = lazy_re(
    rf"(?:^|\n)[ \t]*{_LIST_MARK}"
    r"|(?<![A-Za-z0-9])(?:\d{1,2}\)|[(（]\d{1,2}[)）])[ \t]*"
    r"|(?:[,，][ \t]*)?(?<![A-Za-z])(?:and[ \t]+)?then(?![A-Za-z])"
    r"|[,，;；][ \t]*(?:(?:and[ \t]+)?finally|lastly|最后|其次|随后)(?![A-Za-z])"
    r"|[;；]|→|[ \t]->[ \t]|然后再?|接着|(?<![不一])再(?![次见生])"
    r"|[:：][ \t]*(?=(?:first(?:ly)?|首先|先)(?![A-Za-z进生前]))",
    re.IGNORECASE,
)
# The separators that follow an introduction ("Rewrite the store:" before "1. …" or before
# "first …"): the introduction is the goal itself, not one of its stages.
_INTRO_SEP = lazy_re(rf"\n?[ \t]*{_LIST_MARK}|[:：][ \t]*")
LIST_ITEM = lazy_re(rf"^[ \t]*{_LIST_MARK}")
_STAGE_LEAD = lazy_re(
    r"^(?:(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|next|finally|lastly|and|then|after\s+that)"
    r"(?![A-Za-z])[,，]?\s*"
    r"|(?:首先|其次|然后|接着|最后|第[一二三四五六七八九十\d]+步)[:：，,]?\s*"
    r"|先(?![进生前]))+",
    re.IGNORECASE,
)
_STAGE_TRIM = " \t\n,，、;；.。:：-—–"
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "「": "」", "『": "』"}


def is_coarse(text: str) -> bool:
    """Seed 001 decision 7: an architecture word, more than ``MAX_FILES`` files, or at least
    ``MIN_MODULES`` modules named. Never raises."""
    if _ARCH.search(text):
        return True
    return len(_files(text)) > MAX_FILES or len(_modules(text)) >= MIN_MODULES


def split_stages(text: str) -> tuple[str, ...]:
    """The stages of a goal in order: split at "then", "and then", list items, ";", "；", "然后",
    "再" and "→"; trimmed, connectors ("first", "先", "最后") dropped, empty parts skipped. An
    introduction ending in a colon before a list or a "first" is the goal, not a stage, and is
    dropped. Text in backticks is never split. Never raises."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    masked = mask_inline(text)
    pieces: list[str] = []
    intro = False  # the first piece introduces the others
    last = 0
    for m in _STAGE_SEP.finditer(masked):
        pieces.append(text[last : m.start()])
        if len(pieces) == 1:
            colon = pieces[0].rstrip().endswith((":", "：")) or m.group(0).startswith((":", "："))
            intro = colon and _INTRO_SEP.fullmatch(m.group(0)) is not None
        last = m.end()
    pieces.append(text[last:])
    if len(pieces) >= 3 and intro:
        pieces = pieces[1:]
    stages = (_stage(piece) for piece in pieces)
    return tuple(s for s in stages if s)


def mask_inline(text: str) -> str:
    """Inline code spans filled with a control character: neither a separator nor a space."""
    lines = text.split("\n")
    return "\n".join(blank_spans(line, inline_code_spans(line), "\x01") for line in lines)


def unquote(text: str) -> str:
    """``text`` without the quotes around it, however deeply nested."""
    while len(text) >= 2 and _QUOTES.get(text[0]) == text[-1]:
        text = text[1:-1].strip()
    return text


def _files(text: str) -> set[str]:
    found: set[str] = set()
    for raw in _PATH_TOKEN.findall(text):
        token = raw.rstrip(".-")
        if not token or token.startswith("//") or token.lower() in _NOT_FILES:
            continue
        if "/" in token or "\\" in token:
            slashes = token.count("/") + token.count("\\")
            if (
                _EXTENSION.search(token)
                or slashes >= 2
                or token.startswith(("./", "../", "~/", "/"))
                or raw.endswith("/")
            ):
                found.add(token.rstrip("/\\"))
        elif _EXTENSION.search(token):
            found.add(token)
    return found


def _modules(text: str) -> set[str]:
    """The distinct module names a text mentions: "X module", "X, Y and Z modules",
    ``packages/x``, "X模块", "X、Y和Z模块"."""
    names: set[str] = set()
    for m in _MODULE_NAMED.finditer(text):
        if m.group(1).lower() not in _NOT_MODULES:
            names.add(m.group(1).lower())
    for m in _PLURAL.finditer(text):
        names.update(_listed_before(text[max(0, m.start() - _LIST_WINDOW) : m.start()]))
    names.update(m.group(1).lower() for m in _MODULE_ROOT.finditer(text))
    names.update(m.group(1) for m in _MODULE_ZH.finditer(text))
    previous = 0
    for m in _ZH_PLURAL.finditer(text):
        window = text[max(previous, m.start() - _LIST_WINDOW) : m.start()]
        breaks = list(_ZH_BREAK.finditer(window))
        window = window[breaks[-1].end() :] if breaks else window
        items = [item.strip() for item in _ZH_SPLIT.split(window) if item.strip()]
        if len(items) >= 2:
            names.update(items)
        previous = m.end()
    return names


def _listed_before(window: str) -> list[str]:
    """The names of "a, b and c" at the end of ``window``, read backwards; a single name (no
    list) is left to the singular rule."""
    tokens = _LIST_TOKEN.findall(window)
    items: list[str] = []
    i = len(tokens) - 1
    while i >= 0:
        name = tokens[i].lower()
        if name in _LIST_JOINERS or name in _NOT_MODULES:
            break
        items.append(name)
        i -= 1
        joined = False
        while i >= 0 and tokens[i].lower() in _LIST_JOINERS:
            joined, i = True, i - 1
        if not joined:
            break
    return items if len(items) >= 2 else []


def _stage(piece: str) -> str:
    stage = " ".join(piece.split()).strip(_STAGE_TRIM)
    stage = _STAGE_LEAD.sub("", stage).strip(_STAGE_TRIM)
    return unquote(stage)
