// goalkeeper for Pi: a thin bridge to `goalkeeper bridge pi`, where all of goalkeeper's
// policy lives (Python). Installed by `goalkeeper install pi`; do not edit the copy, re-run
// the install instead.
//
// It starts one Python process per Pi session runtime and speaks JSON lines with it
// (protocol: goalkeeper/hosts/pi/protocol.py). Python declares the tools and commands to
// register, the events to forward and how long to wait for each answer; this file only
// forwards events, applies answers and actions, and never throws into Pi: if Python dies it is
// restarted once, then the agent goes on without goalkeeper and the user is told.
//
// Works with @mariozechner/pi-coding-agent 0.73.x and @earendil-works/pi-coding-agent
// (which maps this import name to itself); the import is type-only.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";

const INSTALLED_COMMAND: string[] | null = null; // goalkeeper install pi writes the command here
const PROTOCOL = 1;
const HELLO_TIMEOUT_MS = 20_000;
const CUSTOM_TYPE = "goalkeeper";
// How much of a tool's output reaches Python (the end, where a test runner's summary is).
const TAIL_CHARS = 4000;
// Two copies may be loaded (installed for the project and the user, or installed and passed
// with -e by `goalkeeper pi run`): the first to see the session serves it, the others stay quiet.
const OWNER = Symbol.for("goalkeeper.pi.owner");
// Registered up front (a handler for an event this Pi does not have never fires); Python's
// declaration says which of them it wants.
const EVENTS = [
  "session_start", "session_compact", "session_before_compact", "session_shutdown", "input",
  "before_agent_start", "agent_start", "agent_end", "agent_before_settle", "agent_settled",
  "turn_end", "tool_call", "tool_result",
];
// Not a Pi event: the extension's report of the user's answer to an "ask" action.

type Declaration = {
  tools: { name: string; label: string; description: string; promptSnippet?: string; promptGuidelines?: string[]; parameters: unknown; timeoutMs: number }[];
  commands: { name: string; description: string }[];
  forward: string[];
  awaited: Record<string, number>;
  commandTimeoutMs: number;
};

function bridgeCommand(): string[] | null {
  const fromEnv = process.env.GOALKEEPER_PI_COMMAND;
  if (fromEnv) {
    try {
      const parsed = JSON.parse(fromEnv);
      if (Array.isArray(parsed) && parsed.length > 0) return parsed.map(String);
    } catch { /* fall through to the installed command */ }
  }
  return INSTALLED_COMMAND;
}

// Pi's version, so Python knows whether Pi settles itself (≥ 0.80.6) or needs its heuristic:
// from the package.json above the running CLI (dist/cli.js or dist/bundle/cli.js).
function piVersion(): string | undefined {
  try {
    let dir = dirname(realpathSync(process.argv[1] ?? ""));
    for (let i = 0; i < 4; i++, dir = dirname(dir)) {
      const file = join(dir, "package.json");
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, "utf8"));
      if (typeof pkg?.name === "string" && pkg.name.endsWith("/pi-coding-agent")) return String(pkg.version);
    }
  } catch { /* unknown: Python falls back to its heuristic */ }
  return undefined;
}

function textOf(message: any): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter((c: any) => c?.type === "text").map((c: any) => String(c.text ?? "")).join("\n");
}

function lastAssistant(messages: any): any {
  if (!Array.isArray(messages)) return undefined;
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === "assistant") return messages[i];
  return undefined;
}

// What Python needs of each event: small and JSON-safe (no transcripts, no system prompt).
function slim(name: string, event: any): Record<string, unknown> {
  switch (name) {
    case "session_start": case "session_shutdown": return { reason: event?.reason };
    case "session_compact": case "session_before_compact": return { reason: event?.reason, willRetry: event?.willRetry };
    case "input": return { text: event?.text, source: event?.source };
    case "before_agent_start": return { prompt: event?.prompt };
    case "tool_call": return { toolCallId: event?.toolCallId, toolName: event?.toolName, input: event?.input };
    // How a call ended, for the check gate: Pi's own isError and the end of the output.
    case "tool_result": return { toolCallId: event?.toolCallId, toolName: event?.toolName, isError: event?.isError === true, content: textOf(event).slice(-TAIL_CHARS) };
    case "turn_end": return { turnIndex: event?.turnIndex };
    case "agent_end": {
      const last = lastAssistant(event?.messages);
      return { stopReason: last?.stopReason, errorMessage: last?.errorMessage, lastText: textOf(last) };
    }
    case "agent_before_settle": {
      const last = lastAssistant(event?.context?.contextMessages ?? event?.context?.llmMessages);
      return { outcome: event?.outcome, canContinue: event?.context?.canContinue, lastText: textOf(last), errorMessage: last?.errorMessage };
    }
    case "agent_settled": return { aborted: event?.aborted };
    default: return {};
  }
}

function ctxInfo(ctx: any): Record<string, unknown> {
  try {
    return {
      cwd: ctx?.cwd,
      sessionId: ctx?.sessionManager?.getSessionId?.(),
      sessionFile: ctx?.sessionManager?.getSessionFile?.(),
      hasUI: ctx?.hasUI,
      idle: ctx?.isIdle?.(),
      pending: ctx?.hasPendingMessages?.(),
      usage: ctx?.getContextUsage?.(),
    };
  } catch {
    return { stale: true }; // Pi disposed this session runtime
  }
}

export default function goalkeeper(pi: ExtensionAPI) {
  let child: ChildProcessWithoutNullStreams | undefined;
  let declaration: Declaration | undefined;
  let starting: Promise<Declaration | undefined> | undefined;
  let restarts = 0;
  let givenUp = false;
  let shuttingDown = false;
  let nextId = 1;
  let lastCtx: any;
  const pending = new Map<number, (value: any) => void>();
  const registered = new Set<string>();
  const token = {};
  let passive: boolean | undefined;

  function claim(): boolean {
    if (passive === undefined) {
      const g: any = globalThis;
      passive = g[OWNER] !== undefined && g[OWNER] !== token;
      if (!passive) g[OWNER] = token;
    }
    return !passive;
  }

  function release() {
    const g: any = globalThis;
    if (g[OWNER] === token) g[OWNER] = undefined;
  }

  function say(text: string, level: "info" | "warning" | "error" = "info") {
    try {
      if (lastCtx?.hasUI) { lastCtx.ui.notify(text, level); return; }
    } catch { /* a stale ctx: fall back to stderr */ }
    process.stderr.write(`${text}\n`);
  }

  function giveUp(why: string) {
    if (givenUp) return;
    givenUp = true;
    say(`goalkeeper is off for this session: ${why}. The agent goes on without it.`, "warning");
  }

  function start(ctx: any): Promise<Declaration | undefined> {
    const command = bridgeCommand();
    if (!command) { giveUp("no bridge command (run `goalkeeper install pi`)"); return Promise.resolve(undefined); }
    let proc: ChildProcessWithoutNullStreams;
    try {
      proc = spawn(command[0], [...command.slice(1), "-C", String(ctx?.cwd ?? process.cwd()), "bridge", "pi"], {
        stdio: ["pipe", "pipe", "inherit"],
        env: { ...process.env, PYTHONUNBUFFERED: "1" },
      });
    } catch (e) {
      giveUp(`cannot start ${command[0]}: ${e}`);
      return Promise.resolve(undefined);
    }
    child = proc;
    let buffer = "";
    proc.stdout.setEncoding("utf8");
    proc.stdout.on("data", (chunk: string) => {
      buffer += chunk;
      let at: number;
      while ((at = buffer.indexOf("\n")) >= 0) { // LF only: U+2028 is not a line break here
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        if (line.trim()) receive(line);
      }
    });
    proc.stdin.on("error", () => { /* the exit handler settles what is pending */ });
    proc.on("error", (e) => process.stderr.write(`goalkeeper: bridge process error: ${e}\n`));
    proc.on("exit", (code, signal) => {
      if (child === proc) child = undefined;
      declaration = undefined;
      starting = undefined;
      for (const resolve of pending.values()) resolve(undefined);
      pending.clear();
      if (shuttingDown) return;
      if (restarts >= 1) giveUp(`its bridge process ended twice (${signal ?? `exit ${code}`})`);
      else restarts += 1; // started again on the next event
    });
    return request("hello", { pi: { protocol: PROTOCOL, version: piVersion() }, ctx: ctxInfo(ctx) }, HELLO_TIMEOUT_MS).then((decl) => {
      if (!decl || !Array.isArray(decl.forward)) { giveUp("the bridge process did not answer"); return undefined; }
      declaration = decl;
      registerFrom(decl);
      return decl;
    });
  }

  async function ensure(ctx: any): Promise<Declaration | undefined> {
    if (givenUp || shuttingDown) return undefined;
    if (declaration && child) return declaration;
    if (!starting) starting = start(ctx);
    return starting;
  }

  function receive(line: string) {
    let msg: any;
    try { msg = JSON.parse(line); } catch { return; }
    if ((msg.kind === "reply" || msg.kind === "error") && typeof msg.id === "number") {
      if (msg.kind === "error") process.stderr.write(`goalkeeper: bridge: ${msg.message}\n`);
      pending.get(msg.id)?.(msg.kind === "reply" ? msg.result ?? undefined : undefined);
      pending.delete(msg.id);
    } else if (msg.kind === "error") {
      process.stderr.write(`goalkeeper: bridge: ${msg.message}\n`);
    } else if (msg.kind === "action") {
      apply(msg);
    }
  }

  function request(kind: string, fields: Record<string, unknown>, timeoutMs: number): Promise<any> {
    const proc = child;
    if (!proc) return Promise.resolve(undefined);
    const id = nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        process.stderr.write(`goalkeeper: no answer to ${kind} ${fields.name ?? ""} within ${timeoutMs} ms\n`);
        resolve(undefined);
      }, timeoutMs);
      pending.set(id, (value) => { clearTimeout(timer); resolve(value); });
      write(proc, { v: PROTOCOL, kind, id, ...fields });
    });
  }

  function post(fields: Record<string, unknown>) {
    if (child) write(child, { v: PROTOCOL, id: nextId++, ...fields, wants_reply: false });
  }

  function write(proc: ChildProcessWithoutNullStreams, message: Record<string, unknown>) {
    try { proc.stdin.write(JSON.stringify(message) + "\n"); } catch { /* exit handler */ }
  }

  function continueWith(text: string) {
    pi.sendMessage({ customType: CUSTOM_TYPE, content: text, display: true }, { triggerTurn: true, deliverAs: "followUp" });
  }

  function apply(a: any) {
    try {
      switch (a.action) {
        case "continue":
          continueWith(String(a.text));
          break;
        case "message":
          pi.sendMessage({ customType: CUSTOM_TYPE, content: String(a.text), display: false }, { deliverAs: a.deliverAs });
          break;
        case "notify":
          say(String(a.text), a.level ?? "info");
          break;
        case "ask":
          ask(a);
          break;
        case "appendEntry":
          pi.appendEntry(String(a.customType ?? CUSTOM_TYPE), a.data);
          break;
        case "tools": {
          const next = new Set<string>(pi.getActiveTools());
          for (const name of a.enable ?? []) next.add(String(name));
          for (const name of a.disable ?? []) next.delete(String(name));
          pi.setActiveTools([...next]);
          break;
        }
        case "setActiveTools":
          if (Array.isArray(a.tools)) pi.setActiveTools(a.tools.map(String));
          break;
        case "compact":
          lastCtx.compact({
            customInstructions: a.instructions,
            onComplete: () => { if (a.then) continueWith(String(a.then)); },
            onError: () => { if (a.then) continueWith(String(a.then)); },
          });
          break;
      }
    } catch (e) {
      process.stderr.write(`goalkeeper: could not apply ${a.action}: ${e}\n`);
    }
  }

  // A question for the user; no UI (print mode) or no answer in time means the safe default.
  function ask(a: any) {
    const labels: string[] = Array.isArray(a.labels) ? a.labels.map(String) : [];
    const answers: string[] = Array.isArray(a.answers) ? a.answers.map(String) : [];
    const report = (label: unknown) => {
      const i = typeof label === "string" ? labels.indexOf(label) : -1;
      post({ kind: "event", name: "choice", event: { key: a.key, answer: i >= 0 ? answers[i] : null }, ctx: {} });
    };
    const ctx = lastCtx;
    if (!ctx?.hasUI) { report(undefined); return; }
    Promise.resolve(ctx.ui.select(String(a.title), labels, { timeout: Number(a.timeoutMs) || 60_000 }))
      .then(report, () => report(undefined));
  }

  // workflow_ask's dialog: a selection (with a timeout only when a recommendation may be
  // adopted), then free text when the custom choice is taken. No UI: the decision stays pending.
  async function showDialog(d: any, ctx: any): Promise<Record<string, unknown>> {
    try {
      if (!ctx?.hasUI) return { source: "no_ui" };
      const choices: string[] = Array.isArray(d.choices) ? d.choices.map(String) : [];
      const opts = typeof d.timeoutMs === "number" ? { timeout: d.timeoutMs } : undefined;
      const picked = await ctx.ui.select(String(d.question), choices, opts);
      if (picked === undefined || picked === null) {
        return d.recommended ? { source: "timeout_recommended", answer: d.recommended } : { source: "cancelled" };
      }
      if (picked === d.custom) {
        const typed = await ctx.ui.input(String(d.question), String(d.placeholder ?? ""));
        return typeof typed === "string" && typed.trim() ? { source: "custom_input", answer: typed.trim() } : { source: "custom_input_cancelled" };
      }
      return { source: "choice_selected", answer: String(picked) };
    } catch {
      return { source: "cancelled" };
    }
  }

  function registerFrom(decl: Declaration) {
    for (const tool of decl.tools ?? []) {
      if (registered.has(`tool:${tool.name}`)) continue;
      registered.add(`tool:${tool.name}`);
      pi.registerTool({
        name: tool.name,
        label: tool.label,
        description: tool.description,
        promptSnippet: tool.promptSnippet,
        promptGuidelines: tool.promptGuidelines,
        parameters: tool.parameters as any,
        async execute(_toolCallId: string, params: any, _signal: any, _onUpdate: any, ctx: any) {
          lastCtx = ctx ?? lastCtx;
          await ensure(ctx);
          // only this extension reports what the user answered: never the model's own _outcome
          const { _outcome: _forged, ...own } = (params ?? {}) as Record<string, unknown>;
          let r = await request("tool", { name: tool.name, params: own, ctx: ctxInfo(ctx) }, tool.timeoutMs);
          if (r?.dialog) {  // a question for the user; the outcome goes back through the tool
            const outcome = await showDialog(r.dialog, ctx);
            r = await request("tool", { name: tool.name, params: { ...own, _outcome: outcome }, ctx: ctxInfo(ctx) }, tool.timeoutMs);
          }
          if (!r) throw new Error("goalkeeper did not answer; the call was not recorded. Try again.");
          if (r.isError) throw new Error(String(r.text));
          return { content: [{ type: "text", text: String(r.text) }], details: r.details ?? {} };
        },
      } as any);
    }
    for (const command of decl.commands ?? []) {
      if (registered.has(`command:${command.name}`)) continue;
      registered.add(`command:${command.name}`);
      pi.registerCommand(command.name, {
        description: command.description,
        handler: async (args: string, ctx: any) => {
          lastCtx = ctx ?? lastCtx;
          if (!(await ensure(ctx))) return;
          const r = await request("command", { name: command.name, args, ctx: ctxInfo(ctx) }, declaration?.commandTimeoutMs ?? 60_000);
          if (r?.notify) say(String(r.notify));
          if (r?.message) {
            try { pi.sendMessage({ customType: CUSTOM_TYPE, content: String(r.message), display: true }, { deliverAs: "followUp", triggerTurn: true }); }
            catch (e) { process.stderr.write(`goalkeeper: could not send the workflow step: ${e}\n`); }
          }
          if (r?.prompt) {
            try { pi.sendUserMessage(String(r.prompt), ctx?.isIdle?.() === false ? { deliverAs: "followUp" } : undefined); }
            catch (e) { process.stderr.write(`goalkeeper: could not send the goal: ${e}\n`); }
          }
        },
      });
    }
  }

  for (const name of EVENTS) {
    (pi as any).on(name, async (event: any, ctx: any) => {
      if (!claim()) return undefined;
      if (name === "session_shutdown") release();
      if (name !== "session_shutdown") lastCtx = ctx;
      if (name === "session_shutdown" && !child) { shuttingDown = true; return undefined; }
      const decl = await ensure(ctx);
      if (!decl || !decl.forward.includes(name)) return undefined;
      const fields = { name, event: slim(name, event), ctx: ctxInfo(ctx) };
      const timeout = decl.awaited?.[name];
      let result: any;
      if (timeout === undefined) post({ kind: "event", ...fields });
      else result = await request("event", { ...fields, wants_reply: true }, timeout);
      if (name === "session_shutdown") {
        shuttingDown = true;
        try { child?.stdin.end(); } catch { /* already gone */ }
      }
      if (!result) return undefined;
      if (name === "tool_call") return result.block ? { block: true, reason: String(result.reason ?? "") } : undefined;
      if (name === "before_agent_start") {
        const out: any = {};
        if (result.appendSystemPrompt) out.systemPrompt = `${event.systemPrompt ?? ""}\n\n${result.appendSystemPrompt}`;
        if (result.message) out.message = { customType: CUSTOM_TYPE, content: String(result.message), display: false };
        return out;
      }
      if (name === "agent_before_settle" && result.continue) {
        const entry = { type: "custom_message", customType: CUSTOM_TYPE, content: String(result.continue), display: true };
        return { entries: [...(event.entries ?? []), entry], continue: true };
      }
      return undefined;
    });
  }
}
