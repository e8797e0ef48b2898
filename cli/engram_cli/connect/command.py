"""`engram connect <client>` and `engram disconnect <client>`: write (and take
back out) a client's MCP configuration, its hooks and a token, without
prompts, so the same command works in a script.

The token: `--token-file F` reuses one (F must be owner-only); otherwise
connect mints one for `--namespace` in the stack's data dir, as `engram
token create` does, keeps it 0600 in `<home>/.engram/connect/` and reuses it
on later runs. `disconnect` revokes a token connect minted."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import stat
import sys
from dataclasses import replace
from pathlib import Path

from engram_cli.connect.clients import (
    URL_ENV,
    Client,
    Planned,
    Target,
    client_files,
    engram_command,
    next_steps,
)
from engram_cli.connect.edits import BlockEdit, FileEdit, JsonEdit, edit_from_spec
from engram_cli.connect.files import (
    ConnectError,
    Manifest,
    check_target,
    commit,
    load_manifest,
    plan,
    read_bytes,
    save_manifest,
    undo,
)
from engram_cli.connect.instructions import BEGIN, END, TEXT, instructions_edit
from engram_cli.settings import CliSettings
from engram_kit.principals import NAME_RE, PrincipalStore
from engram_runner.files import UnsafePath, private_dir
from engram_runner.stack import TOKENS_FILE

PENDING_TOKEN = "<token>"  # what --print shows, and what the first (checking) plan uses
INSTRUCTIONS = "instructions"


def _home(args: argparse.Namespace) -> Path:
    return Path(args.home).absolute() if args.home else Path.home()


def _state_dir(home: Path) -> Path:
    return home / ".engram" / "connect"


def _key(args: argparse.Namespace) -> str:
    """The name of this connection's manifest and token file."""
    if args.client is None:
        path = str(Path(args.instructions).absolute())
        return f"{INSTRUCTIONS}-{hashlib.sha256(path.encode()).hexdigest()[:12]}"
    if args.project:
        path = str(Path(args.project).resolve())
        return f"{args.client}-project-{hashlib.sha256(path.encode()).hexdigest()[:12]}"
    return str(args.client)


def _url(args: argparse.Namespace) -> str:
    if args.url:
        return args.url
    return os.environ.get(URL_ENV) or (
        f"http://127.0.0.1:{8750 + CliSettings().port_offset}/mcp")


def _data_dir(args: argparse.Namespace) -> Path:
    if args.data_dir:
        return Path(args.data_dir).absolute()
    return _home(args) / ".engram" if args.home else CliSettings().data_dir.absolute()


def _read_token_file(path: Path) -> str:
    try:
        info = os.stat(path)
    except OSError as exc:
        raise ConnectError(f"--token-file {path}: {exc.strerror}") from None
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise ConnectError(f"--token-file {path} is readable by others; "
                           f"run `chmod 600 {path}` first")
    token = (read_bytes(path) or b"").decode("utf-8", "replace").strip()
    if not token or "\n" in token:
        raise ConnectError(f"--token-file {path} must hold one token on one line")
    return token


def _mint(data_dir: Path, key: str, namespace: str) -> tuple[str, str]:
    if not (data_dir / TOKENS_FILE).is_file():
        raise ConnectError(f"no engram stack in {data_dir} (no {TOKENS_FILE}): start it once "
                           "with `engram up`, or pass --data-dir DIR, or --token-file FILE")
    store = PrincipalStore(private_dir(data_dir) / TOKENS_FILE)
    taken = {p.name for p in store.list()}
    name, n = key[:56], 1
    while name in taken:
        n += 1
        name = f"{key[:56]}-{n}"
    if not NAME_RE.match(name):
        raise ConnectError(f"cannot derive a principal name from {key!r}")
    try:
        return store.create(name, "agent", [namespace]), name
    except ValueError as exc:
        raise ConnectError(str(exc)) from None


def _token(args: argparse.Namespace, home: Path, key: str,
           manifest: Manifest | None) -> tuple[str, Path, str]:
    """(token, token file, principal connect minted or "")."""
    if args.token_file:
        path = Path(args.token_file).absolute()
        return _read_token_file(path), path, ""
    path = _state_dir(home) / f"{key}.token"
    if manifest and manifest.namespace != args.namespace:
        raise ConnectError(f"{args.client} is connected to namespace {manifest.namespace!r}; "
                           f"run `engram disconnect {args.client}` first")
    kept = read_bytes(path) if manifest and manifest.principal else None
    if kept is not None and manifest:
        token = kept.decode("utf-8", "replace").strip()
        store_file = Path(manifest.data_dir) / TOKENS_FILE
        if not store_file.is_file() or PrincipalStore(store_file).verify(token):
            return token, path, manifest.principal
    if args.dry_run:
        return PENDING_TOKEN, path, ""
    token, principal = _mint(_data_dir(args), key, args.namespace)
    return token, path, principal


def _plan_all(args: argparse.Namespace, target: Target, prior: Manifest | None,
              minted: bool) -> Planned:
    def spec(path: Path) -> dict | None:
        rec = prior.record(path) if prior else None
        return rec.spec if rec else None

    files: Planned = []
    if minted:
        files.append((target.token_file, target.home, FileEdit(target.token + "\n")))
    if args.client:
        files += client_files(Client(args.client), target, spec, default_home=not args.home)
    path = Path(args.instructions).absolute() if args.instructions else None
    if path and all(path != f for f, _, _ in files):  # codex already writes AGENTS.md
        files.append((path, path.parent, instructions_edit(spec(path))))
    return files


def _show(path: Path, edit: object, changes: bool) -> str:
    head = f"{'would change' if changes else 'up to date:'} {path}"
    if isinstance(edit, JsonEdit):
        body: dict[str, object] = {}
        if edit.server:
            body[edit.servers_key] = {edit.name: edit.server}
        if edit.hooks:
            body["hooks"] = {event: [group] for event, group in edit.hooks.items()}
        return head + "\n" + json.dumps(body, indent=2)
    if isinstance(edit, BlockEdit):
        return head + "\n" + edit.block.rstrip("\n")
    return head + ("\n" + edit.content.rstrip("\n") if isinstance(edit, FileEdit) else "")


def run_connect(args: argparse.Namespace) -> int:
    if args.print_instructions:
        sys.stdout.write(f"{BEGIN}\n{TEXT}{END}\n")
        return 0
    if not args.client and not args.instructions:
        sys.stderr.write("error: name a client (claude-code, codex, claude-desktop, cursor), "
                         "or pass --instructions FILE or --print-instructions\n")
        return 2
    try:
        return _connect(args)
    except (ConnectError, UnsafePath, ValueError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1


def _connect(args: argparse.Namespace) -> int:
    home, key = _home(args), _key(args)
    manifest_path = _state_dir(home) / f"{key}.json"
    check_target(manifest_path, home)
    prior = load_manifest(manifest_path)
    project = Path(args.project).absolute() if args.project else None
    # No URL given: this machine's stack, which a stdio bridge may start itself.
    local = None if args.url or os.environ.get(URL_ENV) else _data_dir(args)
    target = Target(home, project, _url(args), PENDING_TOKEN,
                    _state_dir(home) / f"{key}.token", engram_command(), local,
                    CliSettings().port_offset)
    needs_token = args.client is not None
    # A first pass with a stand-in token: every file must parse and accept its
    # change before a token is minted or anything is written.
    planned = [plan(p, root, e) for p, root, e in _plan_all(args, target, prior, False)]
    token, token_file, principal = (_token(args, home, key, prior) if needs_token
                                    else ("", target.token_file, ""))
    if args.dry_run:  # never show a token, not even one read from --token-file
        token = PENDING_TOKEN
    target = replace(target, token=token, token_file=token_file)
    minted = needs_token and not args.token_file and not args.dry_run
    planned = [plan(p, root, e) for p, root, e in _plan_all(args, target, prior, minted)]
    if args.dry_run:
        for p in planned:
            sys.stdout.write(_show(p.path, p.edit, p.changes) + "\n")
        sys.stdout.write("(--print: nothing was written, no token was minted)\n")
        return 0
    manifest = prior or Manifest(str(args.client or INSTRUCTIONS), args.namespace, target.url,
                                 str(token_file))
    manifest.url, manifest.token_file = target.url, str(token_file)
    if principal and principal != manifest.principal:
        manifest.principal, manifest.data_dir = principal, str(_data_dir(args))
    try:
        for p in planned:
            rec, backup = commit(p, manifest.record(p.path))
            if rec is not None:
                manifest.put(rec)
            state = "unchanged" if not p.changes else "wrote"
            sys.stdout.write(f"{state} {p.path}" + (f" (backup: {backup})" if backup else "")
                             + "\n")
    finally:
        save_manifest(manifest_path, manifest)
    if args.client:
        sys.stdout.write(f"next: {next_steps(Client(args.client), target)}\n")
    return 0


def run_disconnect(args: argparse.Namespace) -> int:
    if not args.client and not args.instructions:
        sys.stderr.write("error: name a client, or pass --instructions FILE\n")
        return 2
    try:
        if args.client:
            _disconnect(_state_dir(_home(args)) / f"{_key(args)}.json", str(args.client))
        if args.instructions:
            _disconnect_instructions(args)
    except (ConnectError, UnsafePath, ValueError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    return 0


def _disconnect(manifest_path: Path, what: str) -> None:
    check_target(manifest_path, manifest_path.parent.parent.parent)
    manifest = load_manifest(manifest_path)
    if manifest is None:
        sys.stdout.write(f"{what}: not connected (no record at {manifest_path}); nothing to "
                         "undo\n")
        return
    try:
        while manifest.files:
            rec = manifest.files[-1]
            sys.stdout.write(undo(rec, edit_from_spec(rec.spec)) + "\n")
            manifest.files.pop()
    finally:
        if manifest.files:
            save_manifest(manifest_path, manifest)
    if manifest.principal:
        store_file = Path(manifest.data_dir) / TOKENS_FILE
        store = PrincipalStore(store_file)
        if store_file.is_file() and any(p.name == manifest.principal for p in store.list()):
            store.revoke(manifest.principal)
            sys.stdout.write(f"revoked the token of principal {manifest.principal!r}\n")
    manifest_path.unlink()
    for folder in (manifest_path.parent, manifest_path.parent.parent):
        try:
            folder.rmdir()  # only when empty: connect made them
        except OSError:
            break


def _disconnect_instructions(args: argparse.Namespace) -> None:
    path = Path(args.instructions).absolute()
    state = _state_dir(_home(args))
    own = state / f"{_key(argparse.Namespace(client=None, instructions=path))}.json"
    if own.exists():
        _disconnect(own, str(path))
        return
    for manifest_path in sorted(state.glob("*.json")) if state.is_dir() else []:
        manifest = load_manifest(manifest_path)
        rec = manifest.record(path) if manifest else None
        if manifest and rec:
            sys.stdout.write(undo(rec, edit_from_spec(rec.spec)) + "\n")
            manifest.files.remove(rec)
            save_manifest(manifest_path, manifest)
            return
    sys.stdout.write(f"{path}: no engram block recorded; nothing to undo\n")


def add_commands(sub: argparse._SubParsersAction) -> None:
    """`connect` and `disconnect`, registered on the `engram` parser."""
    clients = [c.value for c in Client]
    conn = sub.add_parser("connect", help="configure an agent client for this stack "
                          "(MCP server, hooks, token); see docs/clients.md")
    conn.add_argument("client", nargs="?", choices=clients)
    conn.add_argument("--namespace", default="default", help="namespace the new token may use")
    conn.add_argument("--token-file", help="use the token in this file (mode 0600) "
                      "instead of minting one")
    conn.add_argument("--url", help=f"the MCP endpoint (default: ${URL_ENV}, else this "
                      "machine's stack)")
    conn.add_argument("--data-dir", help="the stack's data dir, to mint the token in")
    conn.add_argument("--print-instructions", action="store_true",
                      help="print the standing instructions for CLAUDE.md / AGENTS.md")
    conn.add_argument("--print", dest="dry_run", action="store_true",
                      help="show what would be written; write nothing, mint nothing")
    disc = sub.add_parser("disconnect", help="remove exactly what `engram connect` added")
    disc.add_argument("client", nargs="?", choices=clients)
    for cmd in (conn, disc):
        cmd.add_argument("--project", help="claude-code: the project's .mcp.json and "
                         ".claude/settings.local.json instead of the user's files")
        cmd.add_argument("--home", help="write under this directory instead of ~ "
                         "(tests, dry runs)")
        cmd.add_argument("--instructions", metavar="FILE", help="the CLAUDE.md / AGENTS.md "
                         "that gets (or loses) the standing instructions block")
    conn.set_defaults(func=run_connect)
    disc.set_defaults(func=run_disconnect)
