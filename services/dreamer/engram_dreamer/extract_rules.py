"""The `rules` extractor: explicit statements only, no model.

One fact at most per sentence (and per ";" clause of another kind), from a
small documented grammar (here and in extract_rules_wide): known risks,
dated events, always/never rules, decisions, preferences, locations (paths,
URLs) and "X uses / runs on / 's Y is Z" states. Questions, hedges and
progress notes yield nothing. The quote is always the sentence (or clause)
itself, so every fact it proposes is anchored verbatim."""

from __future__ import annotations

import re
from datetime import date
from enum import StrEnum

from .extract_rules_wide import FIRST, WIDE
from .extractor import Candidate, EntryText

# A dot or mark followed by a word character ("3.11", "e.g", "a.md") does not end
# a sentence; the two branches never overlap, so the split is linear.
SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[\w/]))+(?:[.!?]+|(?=\n)|$)")
HEDGE = re.compile(r"^(?:maybe|perhaps|might|could|should we|i think|i wonder|not sure|"
                   r"probably|let'?s|running|working on|looking into|hi|hello|thanks|ok|"
                   r"okay|todo|wip|just|still|trying|will check|checking)\b", re.I)
MONTHS: str = "jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
DATE = re.compile(r"\b(?:on\s+)?(?:(\d{4})-(\d{2})-(\d{2})|(" + MONTHS + r")[a-z]*\.?\s+(\d{1,2})"
                  r"(?:st|nd|rd|th)?,?\s+(\d{4}))\b", re.I)
DATE_DMY = re.compile(r"\b(?:on\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(" + MONTHS + r")[a-z]*\.?,?\s+"
                      r"(\d{4})\b", re.I)
DATE_SLASH = re.compile(r"\b(?:on\s+)?(\d{1,2})/(\d{1,2})/(\d{4})\b")
QUOTED_AFTER_LABEL = re.compile(r"^([\w ,'-]{0,40}?:\s*)[\"\u201c]")
QUESTION = re.compile(r"\?(?![\w/=&])")  # not the "?" of a URL's query
AS_OF = re.compile(r"^as of\s*,?\s*", re.I)
URL_OR_PATH = (r"(?:[a-z][a-z0-9+.-]*://[^\s,;]+[^\s,;.]|~?/[\w./*-]*[\w*/]|"
               r"[\w.-]+(?:/[\w.*-]+)+/?|\.?[\w-]*\.(?:md|ya?ml|json|toml|txt|example|env|cfg|"
               r"ini|py|sh)\b)")
SUBJECT_MAX = 60  # characters of a subject or a place phrase the grammar reads
LEAD = r"^(?:[\w ,'-]{0,40}?:\s*|(?:after [^,]{1,60}|for now|going forward),\s*)?"
PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("RESIDUAL", re.compile(r"^(?:known (?:issue|risk|gap|limitation)|(?:outstanding |residual "
                            r")?risk|caveat|gap|unresolved|open issue)\s*[:\-]\s*(?P<v>.+)$",
                            re.I)),
    ("RESIDUAL", re.compile(r"^(?P<v>.*\b(?:there (?:is|are) (?:currently |still )?no|still has "
                            r"no|(?:has|have) no \w+ (?:yet|at all)|still (?:haven't|hasn't|"
                            r"lacks?)|single point of failure|end[- ]of[- ]life|bus[- ]factor|"
                            r"which is a risk|is a risk|not (?:yet )?(?:verified|backed up|"
                            r"monitored|tested)|does not \w+ \w+ yet|no \w+ (?:\w+ )?yet)\b.*)$",
                            re.I)),
    ("RULE", re.compile(LEAD + r"(?P<v>(?:always|never|do not|don't|must not|must|nobody should|"
                        r"no one should|only)\b.+)$", re.I)),
    ("RULE", re.compile(r"^(?P<v>.+?\b(?:must(?: not| never)?|have to|has to|are to be|is to be|"
                        r"shall(?: not)?|may never|should never)\b.+)$", re.I)),
    ("DECISION", re.compile(LEAD + r"(?:we|i|the team|team|the user|user)\s+(?:have\s+|'ve\s+)?"
                            r"(?:decided|agreed|chose|picked|opted|settled on|are going with|"
                            r"'re going with|went with)\s+(?:to\s+|on\s+|for\s+|that\s+)?"
                            r"(?P<v>.+)$|" + LEAD + r"(?:let'?s go with|the decision was made "
                            r"to|decision\s*[:\-])\s*(?P<v2>.+)$", re.I)),
    ("PREFERENCE", re.compile(LEAD + r"(?:[\w ,]{0,40},\s*)?(?:i|the user|user)\s+(?:prefer|"
                              r"prefers|like|likes|favou?rs?|would rather|'d rather|'d like|"
                              r"would like)\s+(?P<v>.+)$|" + LEAD + r"(?:my|the user's) "
                              r"preference is (?:for )?(?P<v2>.+)$|^please always\s+(?P<v3>.+)$",
                              re.I)),
    # Bounded runs: an open-ended lazy subject would retry the rest of the
    # sentence at every "is in", quadratic in the sentence's length.
    ("REFERENCE", re.compile(rf"^(?:the\s+)?(?P<e>[\w .'-]{{1,{SUBJECT_MAX}}}?)\s+(?:is|are|lives?|"
                             rf"can be found|(?:is|are) (?:kept|stored|tracked|documented)|"
                             rf"documented)\s+(?:at|in|under|on)\s+"
                             rf"(?:[\w ]{{1,{SUBJECT_MAX}}} (?:at|under)\s+)?"
                             rf"(?P<v>{URL_OR_PATH})(?:\s.*)?$", re.I)),
    ("REFERENCE", re.compile(rf"^see\s+(?P<v>{URL_OR_PATH})\s+for\s+(?:the\s+)?(?P<e>.+)$",
                             re.I)),
    ("REFERENCE", re.compile(rf"^(?:the\s+)?(?P<e>[\w .'-]{{3,60}}?)(?:\s+(?:are|is) in [\w ]+)?"
                             rf":\s*(?P<v>{URL_OR_PATH})$", re.I)),
    ("STATE", re.compile(r"^(?:the\s+)?(?P<e>[\w.-]+(?: [\w.-]+){0,2})'s\s+(?P<a>[\w ]{2,30}?)"
                         r"\s+(?:is|are)\s+(?:now\s+)?(?P<v>.+)$", re.I)),
    ("STATE", re.compile(r"^(?:right now,? |currently,? )?the\s+(?P<a>[\w ]{2,30}?)\s+(?:of|on|"
                         r"for|by)\s+(?:the\s+)?(?P<e>[\w.-]+(?: [\w.-]+){0,2})\s+(?:is|are)\s+"
                         r"(?:now\s+)?(?P<v>.+)$", re.I)),
    ("STATE", re.compile(r"^(?:right now,? |currently,? |in \w+,? |our )?(?:the\s+)?"
                         r"(?P<e>[\w.-]+(?: [\w.-]+){0,2})\s+(?:now\s+|still\s+|currently\s+)?"
                         r"(?P<a>uses|runs on|runs|is on|is still on|are on|is deployed (?:to|on|"
                         r"with)|is hosted on|are hosted on|is built with|is written in|"
                         r"consumes from|caches|listens on|takes about|takes|has|go through|"
                         r"goes through|are self-hosted on|is self-hosted on)\s+(?P<v>.+)$",
                         re.I)),
]
ATTRIBUTE_OF_VERB = {"uses": "uses", "runs on": "runs_on", "runs": "runs_on",
                     "is on": "runs_on", "is still on": "runs_on", "are on": "runs_on",
                     "is hosted on": "hosted_on", "are hosted on": "hosted_on",
                     "is built with": "built_with", "is written in": "language",
                     "consumes from": "consumes_from", "caches": "caches",
                     "listens on": "listens_on", "takes about": "duration", "takes": "duration",
                     "has": "has", "go through": "goes_through", "goes through": "goes_through",
                     "are self-hosted on": "hosted_on", "is self-hosted on": "hosted_on"}
STOP = {"the", "a", "an", "to", "of", "for", "on", "in", "with", "and", "our", "we", "is",
        "are", "be", "all", "any", "every", "always", "never", "do", "not", "don't", "must",
        "only", "should", "use", "using"}


SELF = {"general", "i", "user", "team", "we", "my", "me"}


def slug(text: str, words: int, sep: str) -> str:
    tokens = [t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in STOP]
    return sep.join(tokens[:words]) or "general"


def event_date(sentence: str) -> tuple[date | None, str] | None:
    """The sentence's date, if it names one, and the sentence without it. A
    slashed date that reads both ways ("04/05/2025") is an event without a day."""
    m = DATE.search(sentence) or DATE_DMY.search(sentence) or DATE_SLASH.search(sentence)
    if not m:
        return None
    rest = re.sub(r"\s+", " ", (sentence[:m.start()] + sentence[m.end():]).strip(" ,."))
    try:
        if m.re is DATE and m.group(1):
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3))), rest
        if m.re is DATE:
            return date(int(m.group(6)), month_number(m.group(4)), int(m.group(5))), rest
        if m.re is DATE_DMY:
            return date(int(m.group(3)), month_number(m.group(2)), int(m.group(1))), rest
        a, b, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if a <= 12 and b <= 12 and a != b:
            return None, rest
        return date(year, b, a) if a > 12 else date(year, a, b), rest
    except ValueError:  # "2025-13-45" is not a date: the sentence is read without one
        return None


def month_number(name: str) -> int:
    return MONTHS.split("|").index(name.lower()[:3]) + 1


def _fact(kind: str, m: re.Match[str], sentence: str) -> tuple[str, str, str]:
    groups = {k: v for k, v in m.groupdict().items() if v}
    value = (groups.get("v") or groups.get("v2") or groups.get("v3") or sentence).strip()
    if kind == "STATE" and "a" not in groups:  # "X is <number>": the subject names it
        return slug(groups["e"], 4, "-"), "value", value
    if kind == "STATE":
        verb = groups["a"].lower()
        attribute = ATTRIBUTE_OF_VERB.get(verb, "deployed_to" if verb.startswith(
            "is deployed") else slug(verb, 3, "_"))
        return slug(groups["e"], 4, "-"), attribute, value
    if kind == "REFERENCE":
        return slug(groups.get("e", ""), 4, "-"), "location", value
    if kind == "EVENT":
        return slug(value, 2, "-"), "event", value
    if kind == "PREFERENCE":  # whose: a named subject ("Sam prefers"), else the user
        who = slug(groups.get("s", ""), 3, "-")
        return (who if who not in SELF else "user"), slug(value, 3, "_"), value
    if kind == "RESIDUAL" and "e" in groups:
        return slug(groups["e"], 3, "-"), "no_" + slug(groups["a"], 2, "_"), value
    target = re.search(r"\b(?:for|in|on)\s+(?:the\s+)?([\w-]+(?: [\w-]+)?)", value)
    entity = slug(target.group(1), 3, "-") if target and kind != "RESIDUAL" else "project"
    return entity, slug(value, 3, "_"), value


class RulesGrammar(StrEnum):
    """base: the grammar alone (the default). wide: extract_rules_wide's
    patterns too; on the held-out half it finds more facts and more wrong
    ones (docs/dreaming.md), so it is the operator's choice."""

    BASE = "base"
    WIDE = "wide"


def extract_sentence(entry_id: str, sentence: str,
                     grammar: RulesGrammar = RulesGrammar.BASE) -> Candidate | None:
    text = sentence.strip()
    core = text.strip("\"“” ").rstrip(".!,\"” ")
    core = QUOTED_AFTER_LABEL.sub(r"\1", core)  # 'User said: "always ...' reads as a rule
    if not core or QUESTION.search(core) or HEDGE.match(core) or len(core.split()) < 3:
        return None
    dated = event_date(core)
    valid_from = None
    if dated and AS_OF.match(core):  # "As of <date>, X is Y": a state, valid from then
        day, core = dated[0], AS_OF.sub("", dated[1])
        valid_from = day.isoformat() if day else None
    elif dated and not re.match(r"^(?:always|never|do not|must)\b", core, re.I):
        day, rest = dated
        return Candidate(entry_id, "EVENT", slug(rest, 2, "-"), "event", rest or core,
                         text, day.isoformat() if day else None)
    patterns = (*FIRST, *PATTERNS, *WIDE) if grammar is RulesGrammar.WIDE else PATTERNS
    for kind, pattern in patterns:
        m = pattern.match(core)
        if m:
            entity, attribute, value = _fact(kind, m, core)
            return Candidate(entry_id, kind, entity, attribute, value.rstrip(".! "), text,
                             valid_from)
    return None


def extract_text(entry_id: str, sentence: str,
                 grammar: RulesGrammar = RulesGrammar.BASE) -> list[Candidate]:
    """The sentence's fact, then one per clause (split at ";") of a kind the
    sentence did not already yield: "We went with X; the config is at Y"."""
    found = [c for c in [extract_sentence(entry_id, sentence, grammar)] if c is not None]
    if ";" not in sentence:
        return found
    for clause in sentence.split(";"):
        c = extract_sentence(entry_id, clause, grammar)
        if c is not None and c.kind not in {f.kind for f in found}:
            found.append(c)
    return found


class RulesExtractor:
    name = "rules"
    model = ""

    def __init__(self, grammar: RulesGrammar = RulesGrammar.BASE) -> None:
        self.grammar = grammar

    async def extract(self, entries: list[EntryText]) -> list[Candidate]:
        out = []
        for entry in entries:
            for m in SENTENCE.finditer(entry.text):
                out += extract_text(entry.id, m.group(0), self.grammar)
        return out
