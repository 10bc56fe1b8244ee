"""中文消息目录：todo 完成义务（种子 002 / pi-todone v0.6.0）。

标注为 exact 的文本与 pi-todone 逐字节一致（测试按子串匹配）；包前缀 ``pi-todone`` 换成了
goalkeeper 自己的 ``goalkeeper``。字面量花括号写作 ``{{`` ``}}``。
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # -- validateEvidence / normalizeEvidence (exact) ------------------------------------------
    "evidence.missing": "evidence 缺失或非对象",
    "evidence.kind": "kind 必须是 state|runnable|effect，实际: {kind}",
    "evidence.effect_array": "effect 类 evidence 必须是数组",
    "evidence.too_few": "{kind} 类至少需要 1 条证据",
    "evidence.entry_object": "证据条目必须是对象",
    "evidence.file_path": "file 证据缺 path",
    "evidence.file_op": "file 证据 op 非法: {op}",
    "evidence.cmd_cmd": "cmd 证据缺 cmd",
    "evidence.cmd_exit": "cmd 证据 exit 必须为数字",
    "evidence.review_agent": "review 证据缺 agent",
    "evidence.review_path": "review 证据缺 path",
    "evidence.type": "证据 type 必须是 file|cmd|review，实际: {type}",
    "evidence.state_file": "state 类必须有 file 证据",
    "evidence.runnable_cmd": "runnable 类必须有 cmd 证据",
    "evidence.not_array": "evidence.evidence 必须是数组",
    "evidence.guide": (
        "todo 标 completed 必须附 metadata.evidence（JSON），格式：\n"
        '  {{"kind":"state","evidence":[{{"type":"file","path":"src/a.ts","op":"edit"}}]}}\n'
        '  {{"kind":"runnable","evidence":[{{"type":"cmd","cmd":"npm test","exit":0}}]}}\n'
        '  {{"kind":"effect","evidence":[]}}   ← 不可硬验证，仅声明，留人工验收'
    ),
    # -- tree integrity and gates (exact) -------------------------------------------------------
    "todo.parent_not_number": "parentId 必须是数字，实际: {value}",
    "todo.parent_missing": "parentId 引用的任务 #{id} 不存在",
    "todo.id_not_number": "id 必须是数字，实际: {value}",
    "todo.children_open": "子任务 {children} 未完成，父任务不能宣告 completed",
    "todo.children_sep": "、",
    "todo.parent_cycle": "parentId #{parent} 会把任务 #{id} 挂到它自己下面（#{parent} 就是 #{id} 或它的子孙任务）",
    "gate.test": '任务 #{id} 声明了 test 硬门禁：evidence 必须含 cmd 证据且 exit 显式为 0（测试真实通过），如 {{"type":"cmd","cmd":"npm test","exit":0}}',
    "gate.audit": '任务 #{id} 声明了 audit 硬门禁：evidence 必须含交叉审计证据 {{"type":"review","agent":"<复核者>","path":"<评审产物>"}}',
    # -- block reasons -------------------------------------------------------------------------
    "todo.block.parent": "goalkeeper: {err}。树形任务：父节点必须先创建，子节点用 metadata.parentId 挂载。",
    "todo.block.move": "goalkeeper: {err}。未做任何改动：任务只能挂到已存在、且不在它自己子树里的任务下（或以 parentId null 移到根）。",
    "todo.block.tree": "goalkeeper: {err}。先完成子任务，或将其标回 pending/deleted。",
    "todo.block.evidence": "goalkeeper: 完成证明缺失（{err}）。{guide}",
    "todo.block.gate": "goalkeeper: {err}",
    "todo.storm": "[第{n}次拦截同一调用] 停止重试同格式：按上方格式补合规 evidence 重试，或将任务标回 pending（update status=pending）。",
    # -- checked evidence (goalkeeper 自己核对，超出种子) ---------------------------------------
    "todo.checked.file_unchanged": "goalkeeper: 证据说 {path} 已{op}，但它自任务 #{id} 创建以来没有变化（{seen}）。先真正改动它，或改正证据。",
    "todo.checked.file_missing": "goalkeeper: 证据说 {path} 已{op}，但这个文件不存在。先真正写出它，或改正证据。",
    "todo.checked.file_exists": "goalkeeper: 证据说 {path} 已删除，但它仍然存在。先真正删除它，或改正证据。",
    "todo.checked.cmd_mismatch": "goalkeeper: 证据说 `{cmd}` 的 exit 是 {claimed}，但 goalkeeper 在项目目录里重跑后{real}。输出末尾：\n{tail}",
    "todo.checked.exited": " exit 是 {code}",
    "todo.checked.seen_mtime": "最后修改于任务创建之前",
    "todo.checked.seen_git": "最后修改于任务创建之前，git 也未显示改动",
    "todo.op.write": "写入",
    "todo.op.edit": "修改",
    "todo.op.delete": "删除",
    "todo.timeout": "超时了",
    # -- tool errors (not gates) ---------------------------------------------------------------
    "todo.error.action": "action 必须是 create|update|list|get，实际: {action}",
    "todo.error.subject": "create 需要非空的 subject",
    "todo.error.create_status": "任务不能以 {status} 状态创建：先创建，再 update（标 completed 需要证据）",
    "todo.error.id": 'id 必须是数字，实际: {value}（任务编号，如 3 或 "3"）',
    "todo.error.blocked_by": 'blockedBy 须列出任务编号，如 [1, 2] 或 ["1", "2"]；无法读取: {value}',
    "todo.error.unknown": "任务 #{id} 不存在",
    "todo.error.status": "status 必须是 pending|in_progress|completed|deleted，实际: {status}",
    "todo.error.input": "todo 的参数必须是 JSON 对象",
    "todo.error.too_long": "{field} 太长（{size} 字符，上限 {limit}）",
    # -- advice ①–⑦ -----------------------------------------------------------------------------
    "todo.advice.stall": "goalkeeper: 已连续 {n} 轮无进展。请先重新审视 todo 树结构（目标节点对照用户原话仍成立吗？拆错/顺序/死路？），更新后再继续；若确已无法推进，标回 pending 并说明。",
    "todo.advice.create": (
        "goalkeeper: 本单元已使用 {n} 次工具但未拆 todo——任务比你预期的复杂。请先拆 todo 再继续：\n"
        '- 粒度：每项是一个可独立验证的结果（≤ 一句话），如"加 idempotency key 去重 + 回归测试"\n'
        "- 树形：复杂任务先建根节点（目标，对照用户原话），子任务用 metadata.parentId 挂载\n"
        "（小任务豁免——若你认为这是小任务，回复一句原因即可继续）"
    ),
    "todo.advice.parallel": "goalkeeper: 以下任务在前置未完成时已开始：\n{lines}\n若是有意并行（前置项不影响本项），忽略此提示；否则先完成前置，或解除 blockedBy。",
    "todo.advice.parallel_line": "#{id} {subject}（前置 {deps} 未完成）",
    "todo.advice.wait": "goalkeeper: 本单元发起了长等待（subagent/长命令）。等待期间可并行推进（无依赖）：\n{lines}\n不必干等——异步发出后继续做这些，或至少说明等待期间的计划。",
    "todo.advice.proof": "goalkeeper: 还有 {n} 项 todo 未完成：\n{lines}\n三选一继续：① 证明本轮进展（附 evidence）② 说明卡点并交付中间态 ③ 直接继续工作。",
    "todo.advice.verify": "goalkeeper: 任务 #{ids} 已标记完成（格式闸通过）。完成 ≠ 验证：请 spawn 一个 fresh-context reviewer\nsubagent 独立验证（只读检查文件/测试，对照 evidence 声称），发现缺口当场修复后再收尾。",
    "todo.advice.verify_gated": "goalkeeper: 任务 #{ids} 已标记完成（格式闸通过）。完成 ≠ 验证：其中 #{gated} 声明了硬门禁，必须 spawn 一个 fresh-context reviewer subagent 复核其测试/审计证据的真实性（只读检查文件/测试，对照 evidence 声称）{others}，发现缺口当场修复后再收尾。",
    "todo.advice.verify_others": "；其余完成项也请由该 reviewer 一并独立验证",
    "todo.advice.ultimatum": "goalkeeper: 还有 {n} 项 todo 未完成，禁止直接收尾：\n{lines}\n二选一：① 说明卡点（哪一项卡住、原因、下一步）后再收尾——交代过即放行；② 继续完成剩余项后再收尾。",
    "todo.advice.quiet_stop": "goalkeeper: 代理停下时还有 {n} 项 todo 未完成 —— {items}。它只是回复了你的消息，所以没有被顶回去完成；若要它继续，请直接告诉它。",
    # -- 工具本身 ----------------------------------------------------------------------------------
    "todo.tool.snippet": "goalkeeper 的 todo 树：可验证的 todo；标完成必须附证据",
    "todo.tool.description": 'goalkeeper 的本会话 todo 树。复杂任务先拆 todo（每项是一个可独立验证的结果）；树形任务用 metadata.parentId；metadata.gate 声明硬门禁（"test"：一条通过的 cmd 证据，"audit"：一条 review 证据），声明后不能移除。标 completed 必须附 metadata.evidence：{{"kind":"state","evidence":[{{"type":"file","path":"src/a.py","op":"edit"}}]}}、{{"kind":"runnable","evidence":[{{"type":"cmd","cmd":"pytest -q","exit":0}}]}} 或 {{"kind":"effect","evidence":[]}}。goalkeeper 会核对声称改动的文件自 todo 创建以来确有变化，并重跑 test 门禁任务的测试命令：它必须是按原样运行的已批准测试命令（整套测试，不加测试路径或 -k），且至少执行一个测试；effect 证据不能完成带门禁的 todo。树小时回复列出整棵树；超过几十项后给出各状态计数和接下来的未完成项（summary），用 get 按 id 读取任一项。',
    # -- static guideline (L1) and native todo tools -------------------------------------------
    "todo.guideline": "Todo 义务（goalkeeper）：复杂任务（多文件/3+ 步骤/长任务）开始前先用 goalkeeper 的 todo 工具（{todo_tool}；shell 中为 goalkeeper todo）拆 todo，每项是一个可独立验证的结果（≤ 一句话）；小任务（单文件小改/问答）无需列。标 todo completed 必须附 metadata.evidence（state→file 证据 / runnable→cmd 证据 / effect 留人工验收）；树形任务：父 completed 前子项必须全 completed。",
    "todo.native_refused": "goalkeeper: 不要用 {tool} 把任务标为完成——完成需要证据，请改用 goalkeeper 的 todo 工具（{todo_tool}，或 shell 里的 `goalkeeper todo`）：\n{guide}",
    # -- pi-todone 的环境变量（spec §10 envNumber）-------------------------------------------------
    "todo.env.invalid": "[goalkeeper] 环境变量 {name}={raw} 非法，回退默认 {kept}",
    "todo.env.blank": "[goalkeeper] 环境变量 {name}={raw} 非法（空白），回退默认 {kept}",
    # -- 需要用户验收的声明（issue 22 第 2 项）---------------------------------------------------
    "todo.accept.notice": "goalkeeper: 等待你验收（未经验证）—— {items}。逐个核对后，在你自己的终端运行 `goalkeeper todo accept ID`。",
    "todo.accept.item": "#{id} {subject}",
    # -- 子代理的“完成”（issue 22 第 6 项） -------------------------------------------------------
    "subagent.refused": "goalkeeper: 你还没有完成——你的结果依赖于 goalkeeper 拒绝的声称：{items}。\n请用 goalkeeper 能核实的证据逐一修正（通过 {todo_tool} 重新完成该任务、运行验证），或在回答中如实说明哪些没完成、为什么。不要把它报告为已完成。",
    "subagent.complete": "你报告了 `[PDCA] complete`，但你自己的运行中没有一次 goalkeeper 认可的验证运行并通过（{status}）",
    "subagent.unproven": "goalkeeper: 子代理 {agent} 已停止，其工作未经证实——{items}。不要把它的结果算作已完成。",
}
