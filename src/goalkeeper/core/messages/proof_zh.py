"""无法伪造的证明的中文消息：受保护的测试、真正运行过的检查、作为义务的 todo 门禁、诚实的退出，以及停止时用户听到的内容。"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # -- protected tests (goal verify) --------------------------------------------------------
    "proof.verify.no_tests": "退出码 0，但看不出有任何测试运行过",
    "proof.tests.modified": "- {path}：已改动",
    "proof.tests.deleted": "- {path}：已删除",
    "proof.tests.added": "- {path}：新增",
    "proof.tests.more": "- ……另有 {n} 个",
    "proof.tests.held": (
        "验证通过了，但只是因为你改动了测试。goalkeeper 用设定目标时的原始测试、在你的代码上重新运行了验证，"
        "结果失败：\n{changed}\n\n原始测试的输出（最后几行）：\n{tail}\n\n请修改代码使原始测试通过，并把测试改回去。"
        "如果是测试本身有误，请在 {path} 的进展日志中说明，并请用户接受这个改动：只有用户可以"
        "（`goalkeeper goal accept-tests`）。"
    ),
    "proof.tests.held_user": (
        "goalkeeper：目标的验证只有在智能体改动测试后才通过，因此目标未被证明：\n{changed}\n"
        "用原始测试验证时失败。请审阅这些改动；要接受它们，请在你自己的终端里运行 `goalkeeper goal accept-tests`。"
    ),
    "proof.tests.unchecked_user": (
        "goalkeeper：自设定目标以来测试有改动，而 goalkeeper 无法用原始测试运行验证（{problem}），"
        "因此目标未被证明：\n{changed}\n要接受改动后的测试，请在你自己的终端里运行 `goalkeeper goal accept-tests`。"
    ),
    # -- hidden acceptance tests (goal set --hidden-tests) -------------------------------------
    "proof.hidden.failed": (
        "目标的验证通过了，但用户还给了你看不到的验收测试，加上它们之后验证失败。"
        "它们用可见测试之外的输入检查目标本身：请让代码在一般情况下正确，绝不要只针对被测的值。"
        "goalkeeper 不会告诉你它们测什么。"
    ),
    "proof.hidden.failed_user": (
        "goalkeeper：目标的验证通过了，但你的隐藏验收测试在代理的代码上失败，因此目标未被证明。"
    ),
    "proof.hidden.unchecked_user": (
        "goalkeeper：无法运行你的隐藏验收测试（{problem}），因此目标未被证明。"
    ),
    # -- checks that ran (cadence) ------------------------------------------------------------
    "proof.plan_tests.held": (
        "未收尾：测试只有在你改动测试后才通过。goalkeeper 用用户启动本会话时的测试文件、在你的代码上重新运行了项目的测试，"
        "结果失败：\n{changed}\n\n原始测试的输出（最后几行）：\n{tail}\n\n请修改代码使原始测试通过，并把测试改回去。"
        "如果是测试本身有误，请在 {path} 中说明理由，并请用户接受这个改动：只有用户可以（`goalkeeper goal accept-tests`）。"
    ),
    "proof.plan_tests.held_user": (
        "goalkeeper：计划没有收尾：它的测试只有在智能体改动测试后才通过：\n{changed}\n"
        "用原始测试运行时失败。请审阅这些改动；要接受它们，请在你自己的终端里运行 `goalkeeper goal accept-tests`。"
    ),
    "proof.plan_tests.unchecked_user": (
        "goalkeeper：计划没有收尾：本会话开始以来测试有改动，而 goalkeeper 无法按原样运行它们（{problem}）：\n"
        "{changed}\n要接受改动后的测试，请在你自己的终端里运行 `goalkeeper goal accept-tests`。"
    ),
    "check.ran.passed": "`{command}`（通过）",
    "check.ran.failed": "`{command}`（失败）",
    "check.ran.unknown": "`{command}`（已运行，但看不出结果）",
    "check.ran.narrowed": "`{command}`（只运行了部分测试）",
    "check.ran.not_verification": "`{command}`（不是测试运行）",
    "check.ran.unfinished": "`{command}`（没有跑完：被中断、超时或在后台运行）",
    "check.ran.refused": "`{command}`（被拒绝，根本没有运行）",
    "check.ran.empty": "`{command}`（没有选中任何测试）",
    "check.ran.unseen": "`{command}`（goalkeeper 从未看到它启动）",
    "check.ran.nothing": "没有运行任何 shell 命令",
    "check.none": (
        "这次 [PDCA] check 没有运行任何验证：{ran}。Check 是在同一轮里跑完的测试运行："
        "测试运行器（pytest、npm test、cargo test、go test、make test……）、目标的验证命令，"
        "或关键结果中用反引号写出的命令。请在前台运行它，读结果，然后报告 [PDCA] check。"
    ),
    "check.idle": (
        "这次 [PDCA] check 根本没有调用工具，因此没有产生证据。请在这一轮里运行测试"
        "（或目标的验证命令），读结果，然后报告 [PDCA] check。"
    ),
    "check.unknown": (
        "这次 [PDCA] check 运行了 {ran}，但它的退出码被隐藏了（`|| true`、管道、输出被丢到 "
        "/dev/null），输出里也没有测试汇总，看不出测试是否通过。请直接运行测试，读结果，"
        "然后报告 [PDCA] check。"
    ),
    "check.narrowed": (
        "这次 [PDCA] check 运行了 {ran}：只是部分测试（命令行里点名的测试文件、-k、-m、"
        "测试 id）。Check 要运行整套测试，才能说明其他测试仍然通过。请去掉这些选择重新运行，"
        "读结果，然后报告 [PDCA] check。"
    ),
    "check.unreadable": (
        "goalkeeper 无法读出这次 [PDCA] check 运行了哪些命令（会话记录缺失或不是普通文件），"
        "所以它不算数。请重新运行测试，然后报告 [PDCA] check。"
    ),
    "check.stale": (
        "你的 check 运行了 {ran}，但之后 {path} 又被改动了，这次改动还没有被验证。"
        "请在最后一次改动之后重新运行验证，然后报告 [PDCA] check。"
    ),
    "check.failed": (
        "Check 运行了，但失败了：{what}。失败就是证据：它指出计划错在哪里。下一步：[PDCA] act："
        "修复原因（一次一个变量），或按证据改写计划，然后再 check。最近一次 check 失败时，"
        "[PDCA] complete 会被拒绝。"
    ),
    "gate.check.check_not_verified": (
        "- Check 门：最近一次 [PDCA] check 没有运行任何验证（{ran}）。运行测试或目标的验证命令，"
        "读结果，然后报告 [PDCA] check。"
    ),
    "gate.check.check_unknown": (
        "- Check 门：看不出最近一次 check 的测试运行结果如何（{ran}：退出码被隐藏，输出里也没有"
        "汇总）。请直接运行测试，然后报告 [PDCA] check。"
    ),
    "gate.check.check_narrowed": (
        "- Check 门：最近一次 check 只运行了部分测试（{ran}）。请运行整套测试，然后报告 "
        "[PDCA] check。"
    ),
    "gate.check.check_failed": (
        "- Check 门：最近一次 check 的验证失败了（{what}）。修复原因，重新运行，然后报告 [PDCA] check。"
    ),
    "gate.check.check_stale": (
        "- Check 门：最近一次 check 的测试运行之后又有项目文件被改动。改动之后重新运行，"
        "然后报告 [PDCA] check。"
    ),
    "gate.check.changed_after_check": (
        "- Check 门：最近一次 check 之后有项目文件被改动。用一次测试运行验证这次改动，"
        "然后报告 [PDCA] check。"
    ),
    "gate.check.check_unreadable": (
        "- Check 门：goalkeeper 无法读出最近一次 check 运行了哪些命令。重新运行测试，"
        "然后报告 [PDCA] check。"
    ),
    # -- todo gates ---------------------------------------------------------------------------
    "todo.gate.kept": (
        "goalkeeper: 任务 #{id} 声明了门禁 {was}，声明即义务：更新不能移除或削弱它（本次更新要改为 {now}）。"
        "请按门禁要求的证据完成该任务，或将其标回 pending 并告诉用户卡在哪里。"
    ),
    "todo.gate.effect": (
        "goalkeeper: 任务 #{id} 声明了门禁 {gate}。effect 证据只是声明、留给人工验收，不能完成带门禁的 todo："
        "请用 runnable 证据（goalkeeper 会重跑的测试命令）或 state 证据（你改动的文件）完成它，"
        "audit 门禁另附 review 证据；或将其标回 pending 并说明卡点。"
    ),
    "todo.gate.own_key": (
        "goalkeeper: metadata.{key} 由 goalkeeper 在核对完成时写入，todo 调用不能设置它。请去掉它。"
    ),
    "todo.gate.not_rerun": (
        "goalkeeper: 任务 #{id} 声明了 test 门禁，它需要一次由 goalkeeper 亲自执行的测试运行，"
        "而 goalkeeper 不会重跑 `{cmd}`：{reason}。请改为声称一条已批准的测试命令（{approved}），"
        "按原样声称即可：goalkeeper 会在项目目录里重跑它并读取其汇总。"
    ),
    "todo.gate.narrowed": (
        "goalkeeper: 任务 #{id} 声明了 test 门禁；goalkeeper 重跑了 `{cmd}`，它通过了，但只运行了"
        "部分测试（{summary}）。test 门禁要整套测试通过，才能说明其他测试仍然通过：请声称 "
        "{approved}，不要加测试路径、-k 或 -m。"
    ),
    "todo.gate.none_approved": (
        "本项目尚未批准任何测试命令；用户可以在 .goalkeeper.toml 中设置 test-command 并运行 `goalkeeper allow`"
    ),
    "todo.gate.tests_changed": (
        "goalkeeper: 任务 #{id} 声明了 test 门禁；goalkeeper 重跑了 `{cmd}`，它通过了，但只是因为你改动了测试。"
        "用用户启动本会话时的原始测试、在你的代码上再运行一次，它失败了：\n{changed}\n\n原始测试的最后几行输出："
        "\n{tail}\n\n请修改代码让原始测试通过，并把测试改回去。如果确实是测试本身有误，请说明理由并请用户接受这次改动："
        "只有用户可以（`goalkeeper goal accept-tests`）。"
    ),
    "todo.gate.no_tests": (
        "goalkeeper: 任务 #{id} 声明了 test 门禁；goalkeeper 重跑了 `{cmd}`，exit 为 0，但没有运行任何测试"
        "（{summary}）。test 门禁需要至少执行一个测试的运行：请选择确实存在的测试，或先写出测试。"
    ),
    "todo.gate.no_summary": (
        "goalkeeper: 任务 #{id} 声明了 test 门禁；goalkeeper 重跑了 `{cmd}`，exit 为 0，"
        "但输出里没有 goalkeeper 能读懂的测试汇总，无法表明有测试运行过（node --test --test-reporter=dot 不打印汇总）。"
        "请用项目的测试运行器并让它打印汇总（pytest、python -m unittest、jest、vitest、mocha、"
        "node --test、cargo test、go test）。输出末尾：\n{tail}"
    ),
    "todo.gate.unchecked": (
        "goalkeeper: 任务 #{id} 声明了 test 门禁，而 goalkeeper 这次未能重跑 `{cmd}`，门禁未满足。请再次提交完成。"
    ),
    "todo.gate.rerun_mode": "evidence_check 为 {mode}：goalkeeper 没有重跑它",
    "todo.gate.rerun_ungated": "该任务没有 test 门禁：goalkeeper 只为 test 门禁任务重跑命令",
    "todo.gate.not_inspected": "goalkeeper 没有检查它",
    "todo.gate.review": "review 是复核者的陈述：goalkeeper 不核对它",
    "todo.gate.effect_declared": "effect 证据只是声明，留给人工验收",
    "todo.gate.files_off": "evidence_check 为 off：goalkeeper 没有核对任何文件",
    "todo.proof.file_outside": (
        "goalkeeper: 证据说 {path} 已{op}，但它在项目之外，goalkeeper 在那里什么也不核对。"
        "请列出你在项目内改动的文件，或改正证据。"
    ),
    "todo.proof.file_folder": (
        "goalkeeper: 证据说 {path} 已{op}，但它是一个目录。请列出你在其中改动的文件。"
    ),
    "todo.proof.file_other": (
        "goalkeeper: 证据说 {path} 已{op}，但它不是普通文件。请列出你改动的文件。"
    ),
    "todo.proof.file_never": (
        "goalkeeper: 证据说 {path} 已删除，但任务 #{id} 创建时并没有这个文件。请改正证据。"
    ),
    "todo.proof.seen_same": "内容与当时完全相同；更新的修改时间不等于改动",
    "todo.proof.seen_head": "内容与 git 的 HEAD 相同",
    "todo.proof.no_baseline": (
        "goalkeeper 没有该文件在任务创建时的快照，因此只核对了 git 和它的修改时间"
    ),
    "todo.stop.notice": "goalkeeper: 尚未完成 —— {items}。",
    "todo.stop.more": "（另有 {n} 项）",
    "todo.stop.refused": "todo #{id}：{why}",
    "todo.stop.deleted": "todo #{id}（已删除）：{why}",
    "todo.stop.native": "用 {tool} 标记的完成已被拒绝（没有证据）",
    "todo.stop.open_gated": "todo #{id} 仍未完成，声明了门禁 {gate}",
    "todo.stop.why.tree": "其子任务未完成",
    "todo.stop.why.evidence": "其完成没有有效证据",
    "todo.stop.why.gate": "其证据缺少门禁要求的内容",
    "todo.stop.why.effect": "它带门禁却用 effect 证据声称完成",
    "todo.stop.why.gate_kept": "它试图去掉自己的门禁",
    "todo.stop.why.test_failed": "其测试运行失败（{detail}）",
    "todo.stop.why.tests_changed": "它的测试只有在代理改动测试后才通过",
    "todo.stop.why.no_tests": "其测试运行没有执行任何测试",
    "todo.stop.why.narrowed": "它的测试运行只跑了部分测试",
    "todo.stop.why.no_summary": "其测试运行没有给出测试汇总",
    "todo.stop.why.not_rerun": "其测试命令不是 goalkeeper 可以运行的命令",
    "todo.stop.why.unchecked": "其测试命令未能重跑",
    "todo.stop.why.file": "其关于 {detail} 的声称不属实",
    "todo.stop.why.abandoned": "其门禁 {detail} 从未满足",
    # -- commitments --------------------------------------------------------------------------
    "proof.plan.vague": (
        "被取消的承诺需要一个说明为何不再需要的理由。{path} 中这些理由什么也没说明：\n{items}\n"
        "请写明是什么让它变得不必要（由什么覆盖、发生了什么变化），或者完成它；然后再次报告。"
    ),
    "proof.plan.objective": "- 目标被改写了",
    "proof.plan.held_user": (
        "goalkeeper：智能体想要关闭 {path}，但它放弃了你上次发言时计划中 {total} 项承诺中的 {n} 项"
        "（或改写了目标）。这需要你来接受，因此任务没有关闭：\n{what}\n要接受计划的当前样子，"
        "请在你自己的终端里运行 `goalkeeper plan accept`；否则请让智能体完成它们。"
    ),
    "proof.plan.ask.title": "智能体放弃了计划中的大部分承诺：\n{what}\n接受计划的当前样子吗？",
    "proof.plan.ask.accept": "接受改动后的计划",
    "proof.plan.ask.keep": "保留这些承诺",
    # -- honest exits and the truth at a stop -------------------------------------------------
    "blocked.again": (
        "这已是第 {n} 次报告同一个阻碍：到第 {bound} 次 goalkeeper 会暂停，把它交给用户。"
        "如果有可回退的默认方案，现在就选它。"
    ),
    "blocked.pause_same": (
        "goalkeeper 已暂停：agent 已 {n} 次报告同一个阻碍（{reason}）。需要你来处理：回答它，"
        "或者缩小任务。发送新的提示即可继续，计数会重新开始。"
    ),
    "blocked.pause_stalled": (
        "goalkeeper 已暂停：连续 {n} 轮受阻，计划的关键结果和地图都没有进展（最近一次：{reason}）。"
        "发送新的提示即可继续，计数会重新开始。"
    ),
    "check.pause_forged": (
        "goalkeeper 已暂停：已有 {n} 次 [PDCA] check 或 complete 没有伴随真正运行过的验证"
        "（最近一次 check：{ran}）。发送新的提示即可继续，计数会重新开始。"
    ),
    "refusal.pause": (
        "goalkeeper 已暂停：[PDCA] complete 因同样未通过的门已被拒绝 {n} 次。"
        "发送新的提示即可继续，计数会重新开始。"
    ),
    "stop.not_done": "goalkeeper：尚未完成：{gates}。",
    "stop.separator": "；",
    "stop.gate.check.no_check": "Check 门未通过（没有报告过 [PDCA] check）",
    "stop.gate.check.do_after_check": "Check 门未通过（最近一次改动之后没有运行过测试）",
    "stop.gate.check.changed_after_check": "Check 门未通过（最近一次改动之后没有运行过测试）",
    "stop.gate.check.check_stale": "Check 门未通过（最近一次改动之后没有运行过测试）",
    "stop.gate.check.check_without_evidence": "Check 门未通过（最近一次 check 没有运行测试）",
    "stop.gate.check.check_not_verified": "Check 门未通过（最近一次 check 没有运行测试）",
    "stop.gate.check.check_unknown": "Check 门未通过（看不出最近一次 check 的测试结果）",
    "stop.gate.check.check_narrowed": "Check 门未通过（最近一次 check 只运行了部分测试）",
    "stop.gate.check.check_failed": "Check 门未通过（最近一次 check 的测试失败了）",
    "stop.gate.check.check_unreadable": "Check 门未通过（goalkeeper 无法读出最近一次 check 运行了什么）",
    "stop.gate.okr": "OKR 门未通过（{n} 个关键结果未收口）",
    "stop.gate.map": "地图门未通过（{n} 片故事地图叶子未收口）",
}
