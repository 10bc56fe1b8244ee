"""``goalkeeper doctor`` on disk, through the real command: for each host, a healthy install,
the ways its hooks stay silent (untrusted, a stale trust hash, disabled hooks, an untrusted
folder or project), a file it cannot read (never a crash, never a hang), not installed (not a
failure), and that doctor writes nothing."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.cli.app import run


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A project (a git repository) and a home folder; this goalkeeper is the user's
    ``GOALKEEPER_PYTHON``, so the launcher finds it."""
    project, home = tmp_path / "proj", tmp_path / "home"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GOALKEEPER_PYTHON", sys.executable)
    for var in (
        "CODEX_HOME",
        "PI_CODING_AGENT_DIR",
        "GEMINI_CLI_TRUST_WORKSPACE",
        "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
        "GEMINI_RESTRICTED_MODE",
    ):
        monkeypatch.delenv(var, raising=False)
    return project.resolve(), home.resolve()


def install(*args: str) -> None:
    assert run(["install", *args, "--json"]) == 0


def doctor(capsys: pytest.CaptureFixture[str], *hosts: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = run(["doctor", "--json", *(a for h in hosts for a in ("--host", h))])
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, dict)
    return code, data


def host(data: dict[str, Any], name: str) -> dict[str, Any]:
    (rep,) = [h for h in data["hosts"] if h["host"] == name]
    return rep


def failed(rep: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["check"]: f for f in rep["findings"] if not f["ok"]}


def test_nothing_installed_is_not_a_failure(dirs: tuple[Path, Path], capsys: Any) -> None:
    code, data = doctor(capsys)
    assert code == 0 and data["ok"] is True
    assert [h["status"] for h in data["hosts"]] == ["not installed"] * 4


def test_codex_without_trust_is_untrusted_and_trust_makes_it_healthy(
    dirs: tuple[Path, Path], capsys: Any
) -> None:
    """The issue's case: Codex skips untrusted hooks silently; doctor must say so."""
    install("codex")
    code, data = doctor(capsys, "codex")
    rep = host(data, "codex")
    assert code == 1 and rep["status"] == "problem"
    assert set(failed(rep)) == {"trust", "project-trust"}
    assert failed(rep)["trust"]["fix"] == "goalkeeper install codex --trust"
    install("codex", "--trust")
    code, data = doctor(capsys, "codex")
    assert code == 0, data
    assert host(data, "codex")["status"] == "healthy"


def test_codex_a_handler_changed_after_it_was_trusted_is_stale(
    dirs: tuple[Path, Path], capsys: Any
) -> None:
    project, _ = dirs
    install("codex", "--trust")
    hooks = project / ".codex" / "hooks.json"
    doc = json.loads(hooks.read_text())
    doc["hooks"]["Stop"][-1]["hooks"][0]["timeout"] = 61  # Codex hashes the timeout too
    hooks.write_text(json.dumps(doc))
    code, data = doctor(capsys, "codex")
    trust = failed(host(data, "codex"))["trust"]
    assert code == 1 and "(stale hash): stop" in trust["detail"]


def test_codex_user_hooks_disabled_in_the_trust_table(dirs: tuple[Path, Path], capsys: Any) -> None:
    _, home = dirs
    install("codex", "--user", "--trust")
    assert doctor(capsys, "codex")[0] == 0
    config = home / ".codex" / "config.toml"
    key = f"{home}/.codex/hooks.json:stop:0:0"
    config.write_text(config.read_text() + f'\n[hooks.state."{key}x"]\n')  # another's: no effect
    assert doctor(capsys, "codex")[0] == 0
    text = config.read_text().replace(
        f'[hooks.state."{key}"]\n', f'[hooks.state."{key}"]\nenabled = false\n'
    )
    config.write_text(text)
    code, data = doctor(capsys, "codex")
    assert (
        code == 1
        and "disabled (enabled = false): stop" in failed(host(data, "codex"))["trust"]["detail"]
    )


@pytest.mark.parametrize(
    ("name", "content"),
    [(".codex/hooks.json", "{not json"), (".claude/settings.json", "[1, 2]")],
)
def test_a_file_that_does_not_parse_is_reported_unreadable(
    dirs: tuple[Path, Path], capsys: Any, name: str, content: str
) -> None:
    project, _ = dirs
    path = project / name
    path.parent.mkdir(parents=True)
    path.write_text(content)
    code, data = doctor(capsys)
    rep = host(data, name.split("/")[0].lstrip("."))
    assert code == 1 and rep["status"] == "problem"
    assert failed(rep)["readable"]["detail"].startswith(f"unreadable: {path}")


def test_malformed_user_config_toml_and_a_fifo_neither_crash_nor_hang(
    dirs: tuple[Path, Path], capsys: Any
) -> None:
    project, home = dirs
    install("codex", "--trust")
    (home / ".codex" / "config.toml").write_text("[projects\n")
    os.mkfifo(project / ".mcp.json")  # an agent's plant: a read would block forever
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text("{}")
    code, data = doctor(capsys)
    assert code == 1
    assert "not valid TOML" in failed(host(data, "codex"))["readable"]["detail"]
    assert "unreadable" in failed(host(data, "claude"))["readable"]["detail"]


def test_claude_healthy_then_disable_all_hooks(dirs: tuple[Path, Path], capsys: Any) -> None:
    project, _ = dirs
    install("claude")
    code, data = doctor(capsys, "claude")
    rep = host(data, "claude")
    assert code == 0 and rep["status"] == "healthy", rep
    trust = next(f for f in rep["findings"] if f["check"] == "project-trust")
    assert trust["warn"] is True  # an interactive claude asks once: not a failure
    (project / ".claude" / "settings.local.json").write_text('{"disableAllHooks": true}')
    code, data = doctor(capsys, "claude")
    assert (
        code == 1 and "disableAllHooks" in failed(host(data, "claude"))["hooks-enabled"]["detail"]
    )


def test_claude_trust_accepted_above_the_project_up_to_its_git_root(
    dirs: tuple[Path, Path], capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code looks the trust up from the folder upwards, as far as its git root."""
    project, home = dirs
    sub = project / "pkg"
    (sub / ".claude").mkdir(parents=True)
    monkeypatch.chdir(sub)
    install("claude")
    (home / ".claude.json").write_text(
        json.dumps({"projects": {str(project): {"hasTrustDialogAccepted": True}}})
    )
    rep = host(doctor(capsys, "claude")[1], "claude")
    trust = next(f for f in rep["findings"] if f["check"] == "project-trust")
    assert trust["warn"] is False and trust["ok"] is True
    (home / ".claude.json").write_text(  # above the git root: not this project's trust
        json.dumps({"projects": {str(project.parent): {"hasTrustDialogAccepted": True}}})
    )
    rep = host(doctor(capsys, "claude")[1], "claude")
    trust = next(f for f in rep["findings"] if f["check"] == "project-trust")
    assert trust["warn"] is True


def test_claude_project_mcp_server_not_approved(dirs: tuple[Path, Path], capsys: Any) -> None:
    project, _ = dirs
    install("claude")
    settings = project / ".claude" / "settings.json"
    doc = json.loads(settings.read_text())
    doc["enabledMcpjsonServers"] = []
    settings.write_text(json.dumps(doc))
    code, data = doctor(capsys, "claude")
    assert code == 1 and "not approved" in failed(host(data, "claude"))["mcp"]["detail"]


def test_gemini_untrusted_folder_then_trusted(dirs: tuple[Path, Path], capsys: Any) -> None:
    project, home = dirs
    install("gemini")
    code, data = doctor(capsys, "gemini")
    assert code == 1 and set(failed(host(data, "gemini"))) == {"folder-trust"}
    (home / ".gemini").mkdir(exist_ok=True)
    folders = home / ".gemini" / "trustedFolders.json"
    folders.write_text(json.dumps({str(project / "x"): "TRUST_PARENT"}))
    code, data = doctor(capsys, "gemini")
    assert code == 0, data
    rep = host(data, "gemini")
    assert any(f["check"] == "new-project-hooks" and f["warn"] for f in rep["findings"])
    folders.write_text(
        json.dumps({str(project.parent): "TRUST_FOLDER", str(project): "DO_NOT_TRUST"})
    )
    assert doctor(capsys, "gemini")[0] == 1  # the longest rule wins


def test_gemini_hooks_switched_off_or_interpreter_left_to_the_project(
    dirs: tuple[Path, Path], capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, home = dirs
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
    install("gemini")
    assert doctor(capsys, "gemini")[0] == 0
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "settings.json").write_text('{"hooksConfig": {"enabled": false}}')
    code, data = doctor(capsys, "gemini")
    assert (
        code == 1
        and "hooksConfig.enabled" in failed(host(data, "gemini"))["hooks-enabled"]["detail"]
    )
    (home / ".gemini" / "settings.json").unlink()
    settings = project / ".gemini" / "settings.json"
    doc = json.loads(settings.read_text())
    doc["advanced"]["excludedEnvVars"] = ["DEBUG"]
    settings.write_text(json.dumps(doc))
    code, data = doctor(capsys, "gemini")
    assert code == 1 and set(failed(host(data, "gemini"))) == {"excluded-env"}


def test_pi_project_extension_needs_a_trusted_project(dirs: tuple[Path, Path], capsys: Any) -> None:
    project, home = dirs
    install("pi")
    code, data = doctor(capsys, "pi")
    assert code == 1 and set(failed(host(data, "pi"))) == {"project-trust"}
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "trust.json").write_text(json.dumps({str(project.parent): True}))
    assert doctor(capsys, "pi")[0] == 0
    ext = project / ".pi" / "extensions" / "goalkeeper.ts"
    ext.write_text(ext.read_text() + "// edited\n")
    code, data = doctor(capsys, "pi")
    assert code == 1 and "changed since" in failed(host(data, "pi"))["extension"]["detail"]


def test_the_launcher_finding_no_goalkeeper_is_a_problem(
    dirs: tuple[Path, Path], capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    install("codex", "--trust")
    monkeypatch.delenv("GOALKEEPER_PYTHON")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    code, data = doctor(capsys, "codex")
    runnable = failed(host(data, "codex"))["runnable"]
    assert code == 1 and "GOALKEEPER_PYTHON=" in runnable["fix"]


def test_text_output_names_the_fix_and_doctor_writes_nothing(
    dirs: tuple[Path, Path], capsys: Any
) -> None:
    project, home = dirs
    install("codex")
    install("gemini")
    before = snapshot(project, home)
    capsys.readouterr()
    assert run(["doctor", "--host", "codex"]) == 1
    out = capsys.readouterr().out
    assert "Codex CLI: problem" in out and "fix: goalkeeper install codex --trust" in out
    assert "Gemini" not in out
    assert snapshot(project, home) == before


def snapshot(*folders: Path) -> dict[str, bytes | None]:
    return {
        str(p): (p.read_bytes() if p.is_file() else None)
        for folder in folders
        for p in sorted(folder.rglob("*"))
        if "__pycache__" not in p.parts
    }


def test_the_launcher_finding_another_goalkeeper_version_is_a_problem(
    dirs: tuple[Path, Path], capsys: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install("codex", "--trust")
    fake = tmp_path / "old" / "bin" / "python"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\necho 'goalkeeper, version 0.0.1'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("GOALKEEPER_PYTHON", str(fake))
    code, data = doctor(capsys, "codex")
    runnable = failed(host(data, "codex"))["runnable"]
    assert code == 1 and "finds goalkeeper 0.0.1" in runnable["detail"]


def test_a_hook_command_of_another_version_is_noted_and_still_probed(
    dirs: tuple[Path, Path], capsys: Any
) -> None:
    project, _ = dirs
    install("claude")
    settings = project / ".claude" / "settings.json"
    text = settings.read_text()
    doc = json.loads(text)
    for groups in doc["hooks"].values():
        for group in groups:
            for h in group["hooks"]:
                h["command"] = "goalkeeper hook claude"  # what an early version wrote
    settings.write_text(json.dumps(doc))
    code, data = doctor(capsys, "claude")
    rep = host(data, "claude")
    current = next(f for f in rep["findings"] if f["check"] == "current")
    assert code == 0 and current["warn"] and current["fix"] == "goalkeeper install claude"
    assert any(f["check"] == "runnable" and f["ok"] for f in rep["findings"])


def test_an_mcp_server_registered_without_its_host_is_a_problem(
    dirs: tuple[Path, Path], capsys: Any
) -> None:
    """An older install registered ``goalkeeper mcp`` without ``--host``: the server then names
    its tools as Claude Code does (Gemini's model has ``mcp_goalkeeper_todo``), and Gemini's
    project ``.env`` could set its settings. Reinstalling mends it."""
    project, _ = dirs
    install("codex", "--trust")
    install("gemini")
    config = project / ".codex" / "config.toml"
    config.write_text(config.read_text().replace(', "--host", "codex"]', "]"))
    settings = project / ".gemini" / "settings.json"
    doc = json.loads(settings.read_text())
    doc["mcpServers"]["goalkeeper"]["args"] = doc["mcpServers"]["goalkeeper"]["args"][:-2]
    settings.write_text(json.dumps(doc))
    _, data = doctor(capsys, "codex", "gemini")
    for name in ("codex", "gemini"):
        mcp = failed(host(data, name))["mcp"]
        assert f"no `--host {name}`" in mcp["detail"]
        assert mcp["fix"].startswith(f"goalkeeper install {name}")
    install("codex", "--trust")
    install("gemini")
    _, data = doctor(capsys, "codex", "gemini")
    assert "mcp" not in failed(host(data, "codex")) and "mcp" not in failed(host(data, "gemini"))


def test_doctor_never_runs_an_interpreter_a_project_file_names(
    dirs: tuple[Path, Path], capsys: Any
) -> None:
    """The agent may write the project's settings and env files: an interpreter they name is
    never what doctor's launcher probe runs."""
    project, _ = dirs
    install("claude")
    install("gemini")
    marker = project.parent / "ran"
    evil = project / "evil.sh"
    evil.write_text(f"#!/bin/sh\ntouch {marker}\n", encoding="utf-8")
    evil.chmod(0o755)
    settings = project / ".claude" / "settings.json"
    doc = json.loads(settings.read_text())
    doc.setdefault("env", {})["GOALKEEPER_PYTHON"] = str(evil)
    settings.write_text(json.dumps(doc))
    for env_file in (project / ".env", project / ".gemini" / ".env"):
        env_file.write_text(f"GOALKEEPER_PYTHON={evil}\n", encoding="utf-8")
    doctor(capsys)
    assert not marker.exists()


# -------------------------------------------------------------------------------------------
# Whether the agent's shell is confined, per host, and so which guarantees hold
# -------------------------------------------------------------------------------------------
@pytest.fixture
def own(dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """goalkeeper's state, config and runtime folders of this test, under its home folder."""
    _, home = dirs
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "TMPDIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GOALKEEPER_RUNTIME_DIR", str(home / "run"))
    return [
        str(home / ".local/state/goalkeeper"),
        str(home / ".config/goalkeeper"),
        str(home / "run"),
    ]


def checks(rep: dict[str, Any], prefix: str = "sandbox") -> dict[str, dict[str, Any]]:
    return {f["check"]: f for f in rep["findings"] if f["check"].startswith(prefix)}


def edit_json(path: Path, **changes: Any) -> None:
    doc = json.loads(path.read_text("utf-8")) if path.exists() else {}
    doc.update(changes)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), "utf-8")


def test_claude_without_its_sandbox_is_healthy_but_not_confined(
    dirs: tuple[Path, Path], own: list[str], capsys: Any
) -> None:
    """The hooks run, so no failure; but doctor says the agent's Bash is not confined and every
    guarantee but the shadow modules is best effort, and names the fix."""
    install("claude")
    code, data = doctor(capsys, "claude")
    rep = host(data, "claude")
    assert code == 0 and rep["status"] == "healthy"
    assert rep["shell"] == "not confined"
    assert rep["guarantees"]["state-deletion"] == "best effort"
    assert rep["guarantees"]["shadow-modules"] == "holds"
    note = checks(rep)["sandbox"]
    assert note["warn"] is True and note["fix"] == "goalkeeper install claude --sandbox"
    assert "sandbox is off" in note["detail"]


def test_claude_sandbox_installed_is_confined_and_the_project_cannot_undo_it(
    dirs: tuple[Path, Path], own: list[str], capsys: Any
) -> None:
    """After install --sandbox the agent's Bash is confined: every guarantee holds. The
    project's settings (files in the agent's folder) switching the sandbox or its escape hatch
    off change nothing, as in Claude Code: a true / false in the user's settings holds."""
    project, _ = dirs
    install("claude", "--sandbox")
    code, data = doctor(capsys, "claude")
    rep = host(data, "claude")
    assert code == 0 and rep["shell"] == "confined", rep
    assert set(rep["guarantees"].values()) == {"holds"}
    assert all(f["ok"] and not f["warn"] for f in checks(rep).values()), checks(rep)
    local = project / ".claude" / "settings.local.json"
    edit_json(local, sandbox={"enabled": False, "allowUnsandboxedCommands": True})
    code, data = doctor(capsys, "claude")
    assert code == 0 and host(data, "claude")["shell"] == "confined"


def test_claude_sandbox_with_a_hole_is_a_problem(
    dirs: tuple[Path, Path], own: list[str], capsys: Any
) -> None:
    """The wall the user chose does not hold: a folder of goalkeeper's not denied, unix sockets
    open (from any layer), the escape hatch open."""
    project, home = dirs
    install("claude", "--sandbox")
    user = home / ".claude" / "settings.json"
    doc = json.loads(user.read_text("utf-8"))
    doc["sandbox"]["filesystem"]["denyRead"].remove(own[0])
    doc["sandbox"]["allowUnsandboxedCommands"] = True
    user.write_text(json.dumps(doc), "utf-8")
    edit_json(project / ".claude" / "settings.local.json",
              sandbox={"network": {"allowAllUnixSockets": True}})  # fmt: skip
    code, data = doctor(capsys, "claude")
    rep = host(data, "claude")
    assert code == 1 and rep["shell"] == "not confined"
    bad = failed(rep)
    assert set(bad) == {"sandbox-folders", "sandbox-sockets", "sandbox-escape"}, bad
    assert own[0] in bad["sandbox-folders"]["detail"] and "denyRead" in bad["sandbox-folders"][
        "detail"]  # fmt: skip
    assert "dangerouslyDisableSandbox" in bad["sandbox-escape"]["detail"]


def test_claude_sandbox_in_the_project_settings_only_is_noted_not_confined(
    dirs: tuple[Path, Path], own: list[str], capsys: Any
) -> None:
    """Denied folders written as ``~/…`` and ``//…`` count; the sandbox on in the project's own
    settings is not enough: the agent's file tools may write them."""
    project, home = dirs
    install("claude")
    rules = ["~/.local/state/goalkeeper", "//" + own[1].lstrip("/"), own[2] + "/**"]
    box = {"enabled": True, "failIfUnavailable": True, "allowUnsandboxedCommands": False,
           "filesystem": {"denyRead": rules, "denyWrite": rules}}  # fmt: skip
    edit_json(project / ".claude" / "settings.json", sandbox=box)
    code, data = doctor(capsys, "claude")
    rep = host(data, "claude")
    assert code == 0 and rep["shell"] == "not confined"
    assert checks(rep)["sandbox"]["warn"] and "project settings only" in checks(rep)["sandbox"][
        "detail"]  # fmt: skip
    assert checks(rep)["sandbox-folders"]["ok"] is True
    edit_json(home / ".claude" / "settings.json", sandbox={"enabled": True})
    code, data = doctor(capsys, "claude")
    assert host(data, "claude")["shell"] == "confined"


CODEX_CONFINED = "\n[sandbox_workspace_write]\nexclude_slash_tmp = true\n"


def test_codex_workspace_write_keeps_goalkeeper_out_of_its_writable_roots(
    dirs: tuple[Path, Path], own: list[str], capsys: Any
) -> None:
    """Without /tmp among its writable roots (the tests' home folder lies under /tmp) the
    agent's shell cannot write goalkeeper's folders; a writable root that holds one, or
    danger-full-access, makes it not confined: notes, since the hooks still run."""
    _, home = dirs
    install("codex", "--user", "--trust")
    config = home / ".codex" / "config.toml"
    config.write_text(config.read_text("utf-8") + CODEX_CONFINED, "utf-8")
    code, data = doctor(capsys, "codex")
    rep = host(data, "codex")
    assert code == 0 and rep["shell"] == "writes confined", checks(rep)
    assert rep["guarantees"]["state-deletion"] == "holds"
    assert rep["guarantees"]["forged-hook-event"] == "best effort"
    assert "read every file" in checks(rep)["sandbox-reads"]["detail"]

    config.write_text(config.read_text("utf-8") + 'writable_roots = ["~/.local"]\n', "utf-8")
    code, data = doctor(capsys, "codex")
    rep = host(data, "codex")
    assert code == 0 and rep["shell"] == "not confined"
    assert own[0] in checks(rep)["sandbox-folders"]["detail"]

    config.write_text('sandbox_mode = "danger-full-access"\n' + config.read_text("utf-8"))
    code, data = doctor(capsys, "codex")
    rep = host(data, "codex")
    assert rep["shell"] == "not confined" and "danger-full-access" in checks(rep)["sandbox"][
        "detail"]  # fmt: skip


def test_codex_with_tmp_writable_is_not_confined_here(
    dirs: tuple[Path, Path], own: list[str], capsys: Any
) -> None:
    """Codex's default writable roots include /tmp, and this test's folders lie there."""
    install("codex", "--user", "--trust")
    code, data = doctor(capsys, "codex")
    rep = host(data, "codex")
    assert code == 0 and rep["shell"] == "not confined"
    assert "(/tmp)" in checks(rep)["sandbox-folders"]["detail"]


def test_gemini_and_pi_say_their_shell_is_not_confined(
    dirs: tuple[Path, Path], own: list[str], capsys: Any
) -> None:
    install("gemini")
    install("pi")
    _, data = doctor(capsys, "gemini", "pi")
    for name in ("gemini", "pi"):
        rep = host(data, name)
        assert rep["shell"] == "not confined" and checks(rep)["sandbox"]["warn"] is True
    assert "hooks included" in checks(host(data, "gemini"))["sandbox"]["detail"]
    assert "no sandbox" in checks(host(data, "pi"))["sandbox"]["detail"]
