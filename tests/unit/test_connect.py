"""`engram connect` / `disconnect` against a temporary home with the clients'
files already there: the result matches each client's documented format
(tests/unit/client_schemas), a second run changes nothing, and disconnect
puts every original file back byte for byte."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from engram_cli.connect.clients import CODEX_HOOK_EVENTS, HOOK_EVENTS, claude_desktop_config
from engram_cli.connect.instructions import BEGIN, END
from engram_cli.main import build_parser
from engram_kit.principals import PrincipalStore

from ..paths import REPO_ROOT

SCHEMAS = Path(__file__).parent / "client_schemas"

OTHER_HOOK = {"hooks": [{"type": "command", "command": "echo other", "timeout": 5}]}
CLAUDE_JSON = {"numStartups": 7, "mcpServers": {"other": {"type": "http",
                                                          "url": "https://example.com/mcp"}},
               "projects": {"/x": {"allowedTools": []}}}
CLAUDE_SETTINGS = {"model": "opus", "hooks": {"SessionStart": [OTHER_HOOK],
                                              "PreToolUse": [{"matcher": "Bash", **OTHER_HOOK}]}}
CODEX_HOOKS = {"hooks": {"SessionStart": [{"matcher": "startup", **OTHER_HOOK}]}}
CODEX_AGENTS = "# Global\n\nPrefer pnpm.\n"
CODEX_TOML = ('model = "o3"\n\n[mcp_servers.other]\ncommand = "npx"\nargs = ["-y", "other"]\n'
              '\n[profiles.fast]\nmodel = "o4-mini"\n')
STDIO_SERVERS = {"mcpServers": {"other": {"command": "npx", "args": ["-y", "other"],
                                          "env": {"K": "v"}}}, "globalShortcut": ""}


def _dump(obj: Any, indent: int = 4) -> str:
    return json.dumps(obj, indent=indent) + "\n"


def client_files(home: Path) -> dict[str, dict[str, tuple[str, str]]]:
    """client -> {relative path: (existing content, schema file)}."""
    desktop = str(claude_desktop_config(home, False).relative_to(home))
    return {
        "claude-code": {".claude.json": (_dump(CLAUDE_JSON, 2), "claude_code_mcp.json"),
                        ".claude/settings.json": (_dump(CLAUDE_SETTINGS),
                                                  "claude_code_settings.json")},
        "codex": {".codex/config.toml": (CODEX_TOML, "codex_config.json"),
                  ".codex/hooks.json": (_dump(CODEX_HOOKS, 2), "codex_hooks.json"),
                  ".codex/AGENTS.md": (CODEX_AGENTS, "")},
        "claude-desktop": {desktop: (_dump(STDIO_SERVERS), "claude_desktop_config.json")},
        "cursor": {".cursor/mcp.json": (_dump(STDIO_SERVERS, 2), "cursor_mcp.json")},
    }


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mode & 0o777)
            for p in sorted(root.rglob("*")) if p.is_file()}


def engram(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    args = build_parser().parse_args(list(argv))
    rc = args.func(args)
    out, err = capsys.readouterr()
    return rc, out, err


def validate(path: Path, schema: str) -> dict[str, Any]:
    text = path.read_text()
    if not schema:  # markdown: the text itself
        return {"text": text}
    doc = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    jsonschema.validate(doc, json.loads((SCHEMAS / schema).read_text()))
    return doc


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    d.mkdir(mode=0o700)
    PrincipalStore(d / "principals.json").create("agent", "agent", ["default"])
    return d


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    for files in client_files(h).values():
        for rel, (content, _) in files.items():
            (h / rel).parent.mkdir(parents=True, exist_ok=True)
            (h / rel).write_text(content)
            (h / rel).chmod(0o644)
    return h


def _check_entry(client: str, doc: dict[str, Any], token: str, token_file: Path) -> None:
    if "text" in doc:  # Codex's AGENTS.md: theirs kept, the block added once
        assert doc["text"].startswith(CODEX_AGENTS) and doc["text"].count(BEGIN) == 1
        assert "`briefing`" in doc["text"]
        return
    if client == "codex" and "mcp_servers" in doc:
        assert doc["mcp_servers"]["engram"] == {"url": "http://127.0.0.1:9999/mcp",
                                                "bearer_token_env_var": "ENGRAM_TOKEN"}
        assert doc["mcp_servers"]["other"]["command"] == "npx" and doc["model"] == "o3"
        return
    if "hooks" in doc:
        events = CODEX_HOOK_EVENTS if client == "codex" else HOOK_EVENTS
        assert set(events) <= set(doc["hooks"])
        for event, name in events.items():
            commands = [h["command"] for g in doc["hooks"][event] for h in g["hooks"]]
            ours = [c for c in commands if f" hook {name} " in c]
            assert len(ours) == 1, commands
            assert ours[0].startswith("ENGRAM_URL=http://127.0.0.1:9999/mcp ")
            assert ours[0].endswith(f"--token-file {token_file}")
        other = CODEX_HOOKS["hooks"]["SessionStart"][0] if client == "codex" else OTHER_HOOK
        assert other in doc["hooks"]["SessionStart"]
        assert client == "codex" or doc["model"] == "opus"
        return
    server = doc["mcpServers"]["engram"]
    assert "other" in doc["mcpServers"]
    if client == "claude-desktop":
        assert server["args"][-3:] == ["mcp-stdio", "--token-file", str(token_file)]
        assert server["env"] == {"ENGRAM_URL": "http://127.0.0.1:9999/mcp"}
        return
    assert server["url"] == "http://127.0.0.1:9999/mcp"
    assert server["headers"] == {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize("client", ["claude-code", "codex", "claude-desktop", "cursor"])
def test_connect_merges_is_idempotent_and_disconnect_restores(
        client: str, home: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]):
    before = snapshot(home)
    argv = ["--home", str(home), "--data-dir", str(data_dir)]
    rc, out, err = engram(capsys, "connect", client, *argv, "--url", "http://127.0.0.1:9999/mcp")
    assert rc == 0, err
    token_file = home / ".engram" / "connect" / f"{client}.token"
    token = token_file.read_text().strip()
    assert token_file.stat().st_mode & 0o777 == 0o600
    store = PrincipalStore(data_dir / "principals.json")
    principal = store.verify(token)
    assert principal and principal.namespaces == ["default"] and principal.role == "agent"
    for rel, (_, schema) in client_files(home)[client].items():
        _check_entry(client, validate(home / rel, schema), token, token_file)
        assert any(p.name.startswith(Path(rel).name + ".engram-backup-")
                   for p in (home / rel).parent.iterdir())
    if client in ("claude-code", "cursor"):  # the token sits in these: owner-only
        server_file = home / (".claude.json" if client == "claude-code" else ".cursor/mcp.json")
        assert server_file.stat().st_mode & 0o777 == 0o600
    if client == "codex":
        env = home / ".engram" / "connect" / "codex.env"
        shown = subprocess.run(["sh", "-c", f'. "{env}"; printf %s "$ENGRAM_TOKEN"'],
                               capture_output=True, text=True, check=True).stdout
        assert shown == token and token not in env.read_text()
    assert token not in out + err
    first = snapshot(home)

    rc, out, err = engram(capsys, "connect", client, *argv, "--url", "http://127.0.0.1:9999/mcp")
    assert rc == 0, err
    assert snapshot(home) == first, "a second connect must change nothing"
    assert "wrote" not in out and len(store.list()) == 2

    rc, out, err = engram(capsys, "disconnect", client, "--home", str(home))
    assert rc == 0, err
    assert snapshot(home) == before, "disconnect must restore every file byte for byte"
    assert store.verify(token) is None and [p.name for p in store.list()] == ["agent"]


def test_claude_desktop_without_a_url_names_the_data_dir(
        home: Path, data_dir: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch):
    """No --url nor ENGRAM_URL: the entry runs the bridge on the stack's data
    dir (which starts that stack when none runs), with its port offset."""
    monkeypatch.delenv("ENGRAM_URL", raising=False)
    monkeypatch.setenv("ENGRAM_PORT_OFFSET", "40")
    rc, _, err = engram(capsys, "connect", "claude-desktop", "--home", str(home),
                        "--data-dir", str(data_dir))
    assert rc == 0, err
    token_file = home / ".engram" / "connect" / "claude-desktop.token"
    server = validate(claude_desktop_config(home, False), "claude_desktop_config.json")[
        "mcpServers"]["engram"]
    assert server["args"][-5:] == ["mcp-stdio", "--data-dir", str(data_dir),
                                   "--token-file", str(token_file)]
    assert server["env"] == {"ENGRAM_PORT_OFFSET": "40"}


def test_claude_code_project_scope(tmp_path: Path, data_dir: Path,
                                   capsys: pytest.CaptureFixture[str]):
    home, project = tmp_path / "h", tmp_path / "proj"
    home.mkdir()
    project.mkdir()
    (project / ".mcp.json").write_text(_dump({"mcpServers": CLAUDE_JSON["mcpServers"]}, 2))
    before_home, before_project = snapshot(home), snapshot(project)
    argv = ["--home", str(home), "--project", str(project)]
    rc, out, _ = engram(capsys, "connect", "claude-code", *argv, "--data-dir", str(data_dir))
    assert rc == 0
    mcp = validate(project / ".mcp.json", "claude_code_mcp.json")
    assert mcp["mcpServers"]["engram"]["type"] == "http" and "other" in mcp["mcpServers"]
    # .mcp.json is meant to be committed: it names the variable, never the token.
    assert mcp["mcpServers"]["engram"]["headers"] == {"Authorization": "Bearer ${ENGRAM_TOKEN}"}
    (token_file,) = (home / ".engram" / "connect").glob("*.token")
    token = token_file.read_text().strip()
    assert token.startswith("eg_") and token not in (project / ".mcp.json").read_text()
    assert f'export ENGRAM_TOKEN="$(cat {token_file})"' in out and token not in out
    local = validate(project / ".claude" / "settings.local.json", "claude_code_settings.json")
    assert set(local["hooks"]) == set(HOOK_EVENTS)
    assert not (home / ".claude.json").exists()
    first = snapshot(project)
    assert engram(capsys, "connect", "claude-code", *argv, "--data-dir", str(data_dir))[0] == 0
    assert snapshot(project) == first
    assert engram(capsys, "disconnect", "claude-code", *argv)[0] == 0
    assert snapshot(project) == before_project and snapshot(home) == before_home
    assert not (project / ".claude").exists()


@pytest.mark.parametrize("rel,bad", [(".claude.json", '{"mcpServers": {'),
                                     (".claude/settings.json", '{"hooks": []}'),
                                     (".codex/config.toml", "model = \n[x"),
                                     (".cursor/mcp.json", "[1, 2]")])
def test_a_malformed_file_is_refused_and_left_untouched(
        rel: str, bad: str, home: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]):
    (home / rel).write_text(bad)
    before = snapshot(home)
    client = {".codex": "codex", ".cursor": "cursor"}.get(rel.split("/")[0], "claude-code")
    rc, _, err = engram(capsys, "connect", client, "--home", str(home),
                        "--data-dir", str(data_dir))
    assert rc == 1 and str(home / rel) in err and "Traceback" not in err
    assert re.search(r"not valid (JSON|TOML)|holds a JSON list|expected a JSON object", err), err
    assert snapshot(home) == before
    assert len(PrincipalStore(data_dir / "principals.json").list()) == 1, "no token minted"


def test_a_symlinked_config_is_not_followed_out_of_home(
        tmp_path: Path, home: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "mcp.json").write_text("{}\n")
    (home / ".cursor" / "mcp.json").unlink()
    (home / ".cursor" / "mcp.json").symlink_to(outside / "mcp.json")
    rc, _, err = engram(capsys, "connect", "cursor", "--home", str(home),
                        "--data-dir", str(data_dir))
    assert rc == 1 and "symlink" in err
    assert (outside / "mcp.json").read_text() == "{}\n"
    # A linked directory on the way is refused as well.
    (home / ".cursor" / "mcp.json").unlink()
    (home / ".cursor").rmdir()
    (home / ".cursor").symlink_to(outside)
    rc, _, err = engram(capsys, "connect", "cursor", "--home", str(home),
                        "--data-dir", str(data_dir))
    assert rc == 1 and "outside" in err
    assert sorted(p.name for p in outside.iterdir()) == ["mcp.json"]
    # Nor is connect's own directory (token, record) followed out of the home.
    (home / ".cursor").unlink()
    (home / ".engram").symlink_to(outside)
    rc, _, err = engram(capsys, "connect", "cursor", "--home", str(home),
                        "--data-dir", str(data_dir))
    assert rc == 1 and "outside" in err
    assert sorted(p.name for p in outside.iterdir()) == ["mcp.json"]


def test_someone_elses_engram_entry_is_never_clobbered(
        home: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]):
    (home / ".cursor" / "mcp.json").write_text(_dump({"mcpServers": {"engram": {"url": "x"}}}))
    (home / ".codex" / "config.toml").write_text('[mcp_servers.engram]\nurl = "x"\n')
    before = snapshot(home)
    for client in ("cursor", "codex"):
        rc, _, err = engram(capsys, "connect", client, "--home", str(home),
                            "--data-dir", str(data_dir))
        assert rc == 1 and "did not write" in err
    assert snapshot(home) == before


def test_print_writes_and_mints_nothing(home: Path, data_dir: Path,
                                        capsys: pytest.CaptureFixture[str]):
    before, store = snapshot(home), PrincipalStore(data_dir / "principals.json")
    rc, out, _ = engram(capsys, "connect", "claude-code", "--print", "--home", str(home),
                        "--data-dir", str(data_dir))
    assert rc == 0 and "would change" in out and "Bearer <token>" in out
    assert snapshot(home) == before and len(store.list()) == 1


def test_a_token_file_is_used_as_given(home: Path, data_dir: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]):
    token = PrincipalStore(data_dir / "principals.json").create("mine", "agent", ["default"])
    given = tmp_path / "tok"
    given.write_text(token + "\n")
    given.chmod(0o644)
    argv = ["--home", str(home), "--token-file", str(given)]
    rc, _, err = engram(capsys, "connect", "cursor", *argv)
    assert rc == 1 and "chmod 600" in err
    given.chmod(0o600)
    before = snapshot(home)
    rc, out, _ = engram(capsys, "connect", "cursor", *argv, "--print")
    assert rc == 0 and token not in out
    assert engram(capsys, "connect", "cursor", *argv)[0] == 0
    server = json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]["engram"]
    assert server["headers"]["Authorization"] == f"Bearer {token}"
    assert not (home / ".engram" / "connect" / "cursor.token").exists()
    assert engram(capsys, "disconnect", "cursor", "--home", str(home))[0] == 0
    assert snapshot(home) == before and given.read_text() == token + "\n"
    assert PrincipalStore(data_dir / "principals.json").verify(token), "not ours to revoke"


def test_without_a_stack_connect_says_what_to_do(home: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]):
    rc, _, err = engram(capsys, "connect", "cursor", "--home", str(home),
                        "--data-dir", str(tmp_path / "none"))
    assert rc == 1 and "engram up" in err and "--token-file" in err


def test_a_file_changed_after_connect_loses_only_engrams_entry(
        home: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]):
    argv = ["--home", str(home), "--data-dir", str(data_dir)]
    assert engram(capsys, "connect", "cursor", *argv)[0] == 0
    path = home / ".cursor" / "mcp.json"
    doc = json.loads(path.read_text())
    doc["mcpServers"]["later"] = {"command": "later"}
    path.write_text(json.dumps(doc, indent=2))
    assert engram(capsys, "disconnect", "cursor", "--home", str(home))[0] == 0
    left = json.loads(path.read_text())
    assert sorted(left["mcpServers"]) == ["later", "other"]
    backups = [p for p in path.parent.iterdir() if ".engram-backup-" in p.name]
    assert backups and all(p.stat().st_mode & 0o777 == 0o600 for p in backups)


def test_a_new_url_replaces_engrams_entry_and_disconnect_still_restores(
        home: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]):
    before = snapshot(home)
    argv = ["connect", "cursor", "--home", str(home), "--data-dir", str(data_dir)]
    assert engram(capsys, *argv, "--url", "http://127.0.0.1:1/mcp")[0] == 0
    assert engram(capsys, *argv, "--url", "http://127.0.0.1:2/mcp")[0] == 0
    doc = json.loads((home / ".cursor" / "mcp.json").read_text())
    assert doc["mcpServers"]["engram"]["url"] == "http://127.0.0.1:2/mcp"
    assert engram(capsys, "disconnect", "cursor", "--home", str(home))[0] == 0
    assert snapshot(home) == before, "no backup left behind either"


def test_the_instructions_are_short_and_name_real_tools(capsys: pytest.CaptureFixture[str]):
    rc, out, _ = engram(capsys, "connect", "--print-instructions")
    assert rc == 0 and out.startswith(BEGIN) and out.rstrip().endswith(END)
    assert len(out.splitlines()) <= 16
    tools = set(re.findall(r"^\| `(\w+)` \|", (REPO_ROOT / "docs/tools.md").read_text(),
                           re.MULTILINE))
    named = set(re.findall(r"`([a-z_]+)`", out))
    assert {"memory_search", "memory_store", "memory_supersede", "briefing"} <= named
    assert named - {"contested"} <= tools, named - tools
    for must in ("contested", "current as of", "secrets"):
        assert must in out


def test_instructions_go_between_markers_and_come_out_byte_for_byte(
        tmp_path: Path, home: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]):
    agents = tmp_path / "AGENTS.md"
    agents.write_text("# Project\n\nUse tabs.\n")
    original = agents.read_bytes()
    argv = ["--home", str(home), "--instructions", str(agents)]
    assert engram(capsys, "connect", *argv)[0] == 0
    text = agents.read_text()
    assert text.startswith("# Project\n\nUse tabs.\n\n" + BEGIN) and text.count(BEGIN) == 1
    assert engram(capsys, "connect", *argv)[0] == 0
    assert agents.read_text() == text
    assert engram(capsys, "disconnect", *argv)[0] == 0
    assert agents.read_bytes() == original
    # With a client, disconnecting the client takes the block out too.
    before = snapshot(home)
    assert engram(capsys, "connect", "cursor", *argv, "--data-dir", str(data_dir))[0] == 0
    assert BEGIN in agents.read_text()
    assert engram(capsys, "disconnect", "cursor", "--home", str(home))[0] == 0
    assert agents.read_bytes() == original and snapshot(home) == before


def test_connect_runs_as_a_command_without_prompts(tmp_path: Path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-m", "engram_cli", "connect", "codex", "--print",
                           "--home", str(tmp_path), "--data-dir", str(tmp_path / "d")],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "[mcp_servers.engram]" in done.stdout and not any(tmp_path.iterdir())


def test_codex_takes_the_instructions_once_and_the_others_are_told_where_to_paste(
        home: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]):
    agents = home / ".codex" / "AGENTS.md"
    argv = ["--home", str(home), "--data-dir", str(data_dir)]
    rc, _, err = engram(capsys, "connect", "codex", *argv, "--instructions", str(agents))
    assert rc == 0, err
    assert agents.read_text().count(BEGIN) == 1
    assert engram(capsys, "disconnect", "codex", "--home", str(home))[0] == 0
    assert agents.read_text() == CODEX_AGENTS
    for client in ("claude-desktop", "cursor"):
        rc, out, _ = engram(capsys, "connect", client, *argv)
        assert rc == 0 and "--print-instructions" in out.split("next: ")[1], out
        assert engram(capsys, "disconnect", client, "--home", str(home))[0] == 0
