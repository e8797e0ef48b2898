"""The Stop hook's wake-up: when urgent board mail waits for this session's
agent, continue the session (Claude Code's and Codex's documented Stop output,
{"decision": "block", "reason": ...}) so the agent reads it, at most once per
message. Urgent is what was meant for this agent alone: mail sent to it by
name, and board notices (a lease offered to it for a short window); mail to
`all` or to a project waits for the next prompt's note.

The reason names the senders, never the mail's text: the text is peer data,
which the agent reads through board_message, where it is marked as such."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engram_cli.hooks.command import Hook

# Mail ids the hook remembers having woken the agent for (its state file).
REMEMBERED = 200
PAGE = 50


def urgent(message: dict[str, Any]) -> bool:
    to = str(message.get("to") or "")
    return message.get("kind") == "notice" or not (to == "all" or to.startswith("project:"))


def wake_for_mail(hook: Hook) -> dict[str, Any] | None:
    """The Stop output that continues the session, or None to let it stop.
    A stop already continued by a Stop hook (stop_hook_active) is let go:
    the documented guard against a session that never stops."""
    if hook.input.get("stop_hook_active") is True:
        return None
    inbox = hook.client.get("/v1/board/messages", {"limit": PAGE})
    if not isinstance(inbox, dict) or not isinstance(inbox.get("messages"), list):
        return None
    woken = [str(i) for i in hook.load_state().get("woken", []) if isinstance(i, str)]
    fresh = [m for m in inbox["messages"] if isinstance(m, dict) and urgent(m)
             and str(m.get("id", "")) not in woken]
    if not fresh:
        return None
    hook.save_state(woken=(woken + [str(m.get("id", "")) for m in fresh])[-REMEMBERED:])
    senders = sorted({str(m.get("from", "")) for m in fresh})
    return {"decision": "block",
            "reason": f"engram: {len(fresh)} urgent board message(s) for you from "
                      f"{', '.join(senders)}. Read them with board_message "
                      "(action=receive) and ack them; then carry on or stop."}
