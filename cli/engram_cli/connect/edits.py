"""The three kinds of change connect makes to a file: entries merged into a
JSON document, a marked block of text (TOML or markdown), a whole file of
its own. Each applies idempotently and can be taken out again."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engram_cli.connect.files import ConnectError, Edit

JsonObj = dict[str, Any]


def _indent(text: str) -> int | str:
    """The indentation a JSON file already uses (2 when it has none)."""
    m = re.search(r"^([ \t]+)\S", text, re.MULTILINE)
    if not m:
        return 2
    return "\t" if m.group(1).startswith("\t") else len(m.group(1))


def _child(parent: JsonObj, key: str, kind: type, path: Path, created: list[str],
           where: str) -> Any:
    if key not in parent:
        parent[key] = kind()
        created.append(where)
    value = parent[key]
    if not isinstance(value, kind):
        raise ConnectError(f"{path}: {where} is a {type(value).__name__}, expected a "
                           f"{'list' if kind is list else 'JSON object'}; fix the file first "
                           "(nothing was changed)")
    return value


class JsonEdit:
    """An MCP server entry under `servers_key` and/or hook groups under
    `hooks`; `previous` is the spec this edit had the last time connect ran,
    so an entry connect wrote may be replaced, and anyone else's never is."""

    def __init__(self, secret: bool, servers_key: str = "mcpServers", name: str = "engram",
                 server: JsonObj | None = None, hooks: dict[str, JsonObj] | None = None,
                 previous: JsonObj | None = None) -> None:
        self.secret, self.servers_key, self.name = secret, servers_key, name
        self.server, self.hooks = server, hooks or {}
        prev = previous or {}
        self.prev_server: JsonObj | None = prev.get("server")
        self.prev_hooks: dict[str, JsonObj] = prev.get("hooks") or {}
        self.created: list[str] = list(prev.get("created") or [])

    @staticmethod
    def load(path: Path, text: str | None) -> JsonObj:
        if text is None or not text.strip():
            return {}
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConnectError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno} "
                               f"column {exc.colno}); fix it or move it aside. Nothing was "
                               "changed") from None
        if not isinstance(data, dict):
            raise ConnectError(f"{path} holds a JSON {type(data).__name__}, not an object; "
                               "nothing was changed")
        return data

    def apply(self, path: Path, text: str | None) -> str:
        data = self.load(path, text)
        if text is None and "<file>" not in self.created:
            self.created.append("<file>")
        if self.server is not None:
            servers = _child(data, self.servers_key, dict, path, self.created, self.servers_key)
            have = servers.get(self.name)
            if have not in (None, self.server, self.prev_server):
                raise ConnectError(f"{path} already has an MCP server named {self.name!r} that "
                                   "engram connect did not write; remove it first (nothing "
                                   "was changed)")
            servers[self.name] = self.server
        if self.hooks:
            hooks = _child(data, "hooks", dict, path, self.created, "hooks")
            for event, group in self.hooks.items():
                groups = _child(hooks, event, list, path, self.created, f"hooks.{event}")
                old = self.prev_hooks.get(event)
                if old is not None and old != group and old in groups:
                    groups[groups.index(old)] = group
                elif group not in groups:
                    groups.append(group)
        end = "\n" if text is None or text.endswith("\n") else ""
        return json.dumps(data, indent=_indent(text or ""), ensure_ascii=False) + end

    def remove(self, path: Path, text: str) -> str | None:
        data = self.load(path, text)
        servers = data.get(self.servers_key)
        if self.server is not None and isinstance(servers, dict):
            servers.pop(self.name, None)
            if not servers and self.servers_key in self.created:
                del data[self.servers_key]
        hooks = data.get("hooks")
        if isinstance(hooks, dict):
            for event, group in self.hooks.items():
                groups = hooks.get(event)
                if isinstance(groups, list):
                    hooks[event] = [g for g in groups if g != group]
                    if not hooks[event] and f"hooks.{event}" in self.created:
                        del hooks[event]
            if not hooks and "hooks" in self.created:
                del data["hooks"]
        if not data and "<file>" in self.created:
            return None
        end = "\n" if text.endswith("\n") else ""
        return json.dumps(data, indent=_indent(text), ensure_ascii=False) + end

    def spec(self) -> JsonObj:
        return {"kind": "json", "secret": self.secret, "servers_key": self.servers_key,
                "name": self.name, "server": self.server, "hooks": self.hooks,
                "created": self.created}


class BlockEdit:
    """Text between two marker lines, appended to a file (or replacing the
    block an earlier run wrote); `check` vets the whole file before and after."""

    def __init__(self, begin: str, end: str, body: str, secret: bool = False,
                 check: Callable[[Path, str, bool], None] | None = None,
                 kind: str = "block", previous: JsonObj | None = None) -> None:
        self.begin, self.end, self.body, self.secret = begin, end, body, secret
        self.check, self.kind = check, kind
        self.created = bool((previous or {}).get("created"))

    @property
    def block(self) -> str:
        return f"{self.begin}\n{self.body.rstrip(chr(10))}\n{self.end}\n"

    def _span(self, text: str) -> tuple[int, int] | None:
        start = text.find(self.begin + "\n")
        if start < 0 or (start > 0 and text[start - 1] != "\n"):
            return None
        stop = text.find(self.end, start)
        if stop < 0:
            return None
        stop += len(self.end)
        return start, stop + 1 if text[stop:stop + 1] == "\n" else stop

    def apply(self, path: Path, text: str | None) -> str:
        self.created = self.created or text is None
        text = text or ""
        span = self._span(text)
        if self.check:
            self.check(path, text, span is not None)
        if span:
            new = text[:span[0]] + self.block + text[span[1]:]
        else:
            sep = "" if not text else "\n" if text.endswith("\n") else "\n\n"
            new = text + sep + self.block
        if self.check:
            self.check(path, new, True)
        return new

    def remove(self, path: Path, text: str) -> str | None:
        span = self._span(text)
        if span is None:
            return text
        head, tail = text[:span[0]], text[span[1]:]
        if head.endswith("\n\n"):  # the blank line apply put before the block
            head = head[:-1]
        new = head + tail
        return None if not new.strip() and self.created else new

    def spec(self) -> JsonObj:
        return {"kind": self.kind, "secret": self.secret, "begin": self.begin,
                "end": self.end, "body": self.body, "created": self.created}


def toml_check(table: str, name: str, expected: JsonObj) -> Callable[[Path, str, bool], None]:
    """Vet a TOML file: it must parse; before the change no `[table.name]` may
    exist outside connect's block; after it, the table must read back as written."""

    def check(path: Path, text: str, ours: bool) -> None:
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConnectError(f"{path} is not valid TOML ({exc}); fix it or move it aside. "
                               "Nothing was changed") from None
        have = doc.get(table, {}).get(name) if isinstance(doc.get(table), dict) else None
        if have is not None and not ours:
            raise ConnectError(f"{path} already has [{table}.{name}] that engram connect did "
                               "not write; remove it first (nothing was changed)")
        if ours and have is not None and have != expected:
            raise ConnectError(f"{path}: [{table}.{name}] would not read back as written "
                               "(is it defined twice?); nothing was changed")

    return check


class FileEdit:
    """A whole file that is connect's own (a token file, an env file)."""

    def __init__(self, content: str, secret: bool = True) -> None:
        self.content, self.secret = content, secret

    def apply(self, path: Path, text: str | None) -> str:
        return self.content

    def remove(self, path: Path, text: str) -> str | None:
        return None

    def spec(self) -> JsonObj:
        return {"kind": "file", "secret": self.secret, "content": self.content}


def edit_from_spec(spec: JsonObj) -> Edit:
    """The edit a manifest entry describes, for disconnect."""
    kind = spec.get("kind")
    if kind == "json":
        return JsonEdit(spec["secret"], spec["servers_key"], spec["name"], spec["server"],
                        spec["hooks"], previous=spec)
    if kind in ("block", "toml"):
        return BlockEdit(spec["begin"], spec["end"], spec["body"], spec["secret"],
                         kind=kind, previous=spec)
    if kind == "file":
        return FileEdit(spec["content"], spec["secret"])
    raise ConnectError(f"unknown change kind {kind!r} in engram connect's record")
