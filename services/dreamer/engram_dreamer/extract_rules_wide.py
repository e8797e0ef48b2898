"""The `rules` extractor's wider grammar: the sentence shapes the first
grammar missed on the tuning entries, written as general phrasings (other
subjects, contractions, lead labels, negated capabilities, document nouns,
relative dates), not as the tuning sentences themselves.

`FIRST` is tried before the base grammar (shapes the base grammar would
misfile), `WIDE` after it. Every run is bounded or anchored once, so a
sentence costs linear time whatever its length."""

from __future__ import annotations

import re

# A short subject: up to four words, each a bounded run.
SUBJ = r"(?:[\w.'/-]{1,40}\s+){0,3}?[\w.'/-]{1,40}"
# Between a subject and its verb: a space, or the apostrophe of "I'd" ("ad|opted" is no verb).
GAP = r"(?:\s+|(?=['\u2019]))"
LEAD = (r"^(?:[\w ,'-]{0,40}?:\s*[\"\u201c]?|(?:after [^,]{1,60}|if [^,]{1,60}|per [^,]{1,40}|"
        r"for now|going forward|from now on),\s*)?")
FLAG = re.I
DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
WHEN = (r"(?:yesterday|earlier today|this (?:morning|afternoon|week|month)|last (?:night|week|"
        r"month|quarter|sprint|year|weekend|" + DAYS + r")|over the weekend|on (?:" + DAYS +
        r")|\w{1,10} (?:days|weeks|months) ago)\b")

# A sentence that states a rule ("don't edit X by hand") is not a risk report.
NOT_A_RULE = (r"^(?!(?:do not|don't|never|always|please)\b)(?!.{0,300}?\b(?:must|always|"
              r"should|rule|(?<!has )(?<!have )never)\b)")

FIRST: list[tuple[str, re.Pattern[str]]] = [
    ("RESIDUAL", re.compile(r"^(?:[\w -]{0,30}?\b)?(?:known (?:issue|risk|gap|limitation|bug)s?|"
                            r"risks?|caveats?|gaps?|limitations?|concerns?|warnings?|"
                            r"tech(?:nical)? debt|heads[- ]up|open (?:issue|risk)s?|unresolved|"
                            r"fixme|problems?)\s*[:\-]\s*(?P<v>.+)$", FLAG)),
    ("REFERENCE", re.compile(r"^(?:the\s+)?(?P<e>(?:[\w.'-]{1,40}\s+){0,3}?(?:runbooks?|docs?|"
                             r"documentation|dashboards?|logs|wiki|pages?|sheet|spreadsheet|"
                             r"channel|board|tickets?|schedule|rotation|credentials|secrets?|"
                             r"passwords?|keys?|config|configuration|repo|repository|diagrams?|"
                             r"notes|playbooks?|guide|specs?|postmortems?|calendar|folder|"
                             r"bucket|readme|changelog|metrics|alerts|traces|backlog|roadmap|"
                             r"contacts?|templates?|recordings?|minutes|tracker|issues|source|"
                             r"code|designs?|mockups?|invoices?|reports?|artifacts|artefacts|"
                             r"images|backups?|dumps?)(?:\s+(?:for|of|from) [\w .'-]{1,40}?)?)"
                             r"\s+(?:is|are|lives?|can be found|(?:is|are) (?:kept|stored|"
                             r"tracked|documented|linked|pinned|posted|filed|available|"
                             r"published|hosted|saved|uploaded|managed))\s+(?:at|in|under|on|"
                             r"from|via|inside)\s+(?P<v>.{1,300})$", FLAG)),
    ("REFERENCE", re.compile(LEAD + r"(?:the\s+)?(?P<e>" + SUBJ + r")\s+(?:is|are)\s+"
                             r"(?:kept|stored|tracked|documented|archived|saved|generated|"
                             r"exported|published|checked in)\s+(?:at|in|on|under|to|"
                             r"into|inside)\s+(?P<v>.{1,300})$", FLAG)),
    ("REFERENCE", re.compile(LEAD + r"(?:the\s+)?(?P<e>" + SUBJ + r")\s+(?:is|are)\s+"
                             r"(?P<v>[A-Z][A-Z0-9]{1,9}-\d{1,9}\b.{0,300})$")),
    ("RULE", re.compile(r"^(?:under no circumstances|in no case|at no point|no matter what)\b"
                        r",?\s*(?P<v>.+)$", FLAG)),
    ("RULE", re.compile(LEAD + r"(?P<v>no (?!(?:idea|luck|worries|problem|clue|way|need)\b)"
                        r"[\w-]{1,30} (?:to|in|on|after|before|without|during|unless|outside|"
                        r"into|from|at)\b.+)$", FLAG)),
    ("RULE", re.compile(LEAD + r"(?P<v>(?:make sure|be sure|remember|avoid|please never|"
                        r"please do not|please don't|do never)\b.+)$", FLAG)),
    ("RESIDUAL", re.compile(NOT_A_RULE + r"(?P<v>.{0,300}?"
                            r"\b(?:doesn't|does not|we don't|we do not|can't|cannot|isn't|is not|"
                            r"aren't|are not|won't|will not|hasn't|haven't|has never|have never|"
                            r"lacks?|has no|have no|we don't have|we do not have)\s+"
                            r"(?:\w+\s+){0,2}?(?:handle|sync|support|"
                            r"retry|validate|verify|check|encrypt|encrypted|backed up|monitored|"
                            r"tested|covered|alert|scale|rotate|rotated|recover|audit|expire|"
                            r"patched|documented|replicated|enforced|persist|idempotent|"
                            r"redundant|automated|reviewed|tests|backups?|monitoring|alerting|"
                            r"failover|fallback|owner|runbook|rate limit(?:ing)?|limits?|"
                            r"timeouts?|retries|encryption|redundancy|replicas?|"
                            r"been (?:tested|restored|verified|audited))\b.*)$", FLAG)),
    ("RESIDUAL", re.compile(NOT_A_RULE + r"(?P<v>.{0,300}?\b(?:there'?s no|has no|have no|"
                            r"(?:has|have) never been|(?:nobody|no one) has|expires? soon|"
                            r"(?:is|are) manual|under (?:heavy |sustained |high )?load|flaky|"
                            r"unresolved|"
                            r"(?:hasn't|haven't|has not|have not) (?:yet )?been|(?:has|have) never "
                            r"(?:\w+ )?been|still (?:allows?|broken|wrong|failing|open|exposed|"
                            r"pending|unpatched)|not (?:yet )?(?:done|fixed|resolved|addressed)|"
                            r"flakes|intermittently|"
                            r"leaks? memory|memory leak|race condition|deprecated|unpatched|"
                            r"out of date|outdated|hard-?coded|in plain ?text|unencrypted|"
                            r"untested|unmonitored|undocumented|unowned|by hand|manually|"
                            r"(?:only|nobody but) \w+ knows|no one knows|nobody knows|"
                            r"could lapse|could lose|may lose|might lose|can lose|"
                            r"could stall|can stall|is missing|are missing)\b.*)$", FLAG)),
]

RULE_MODAL = ("RULE", re.compile(r"^(?P<v>(?!(?:i|we)\b).{1,300}?\b(?:should not|shouldn't|"
                                 r"should always|ought to|(?:is|are) (?:never|not) to be|"
                                 r"(?:is|are) (?:required|mandatory|forbidden|prohibited|banned|"
                                 r"not allowed|not permitted|disallowed)|needs? to be|"
                                 r"(?:needs?|requires?) (?:(?:a|an|one|two|three|at least \w+) )?"
                                 r"(?:\w+ )?(?:approvals?|reviews?|reviewers?|sign-?offs?|"
                                 r"tickets?|tests?))\b.*)$", FLAG))

DECIDED = (r"(?:have\s+|'ve\s+|has\s+|had\s+|finally\s+|formally\s+|just\s+|all\s+)?"
           r"(?:decided|agreed|chose|chosen|picked|opted|settled on|voted|approved|"
           r"signed off on|committed to|went with|gone with|are going with|'re going with|"
           r"(?:are |'re |is |'s )?standardi[sz]ing on|standardi[sz]ed on|"
           r"(?:are |'re )(?:switching|moving|migrating) to|will (?:switch|move|migrate) to|"
           r"'ll (?:switch|move|migrate) to|(?:are |'re )(?:adopting|dropping|replacing)|"
           r"will (?:use|adopt|drop|go with)|'ll (?:use|adopt|drop|go with)|"
           r"(?:are |'re )going to (?:use|adopt|drop)|ruled out|rejected)")

WIDE: list[tuple[str, re.Pattern[str]]] = [
    RULE_MODAL,
    ("DECISION", re.compile(r"^(?:[\w ]{0,20}(?:final (?:call|decision|answer|word)|decision|"
                            r"verdict|resolution|outcome|conclusion|consensus|agreed)\b"
                            r"[\w ]{0,30}:\s*)(?P<v>.+)$", FLAG)),
    ("DECISION", re.compile(LEAD + r"(?:" + SUBJ + r")" + GAP + DECIDED +
                            r"\s+(?:to\s+|on\s+|for\s+|that\s+|with\s+)?(?P<v>.+)$", FLAG)),
    ("DECISION", re.compile(r"^(?P<v>.{0,300}?\bwill\b.{0,300}?\b(?:rather than|instead of)\b"
                            r".*)$", FLAG)),
    ("DECISION", re.compile(LEAD + r"(?:the plan is to|it was decided (?:to|that)|"
                            r"the decision is (?:to|that))\s+(?P<v>.+)$", FLAG)),
    ("PREFERENCE", re.compile(r"^(?:.{0,60}?[\s,;]|)(?P<s>" + SUBJ + r")" + GAP + r"(?:really\s+|"
                              r"strongly\s+|generally\s+|usually\s+|also\s+|still\s+)?(?:"
                              r"prefers?|'d prefer|would prefer|'d rather|would rather|"
                              r"favou?rs?)\s+(?:that you\s+|that\s+|you\s+|to\s+|it when\s+|"
                              r"when\s+)?(?P<v>.+)$", FLAG)),
    ("PREFERENCE", re.compile(r"^(?:.{0,60}?\b)?(?:the user|user)\s+(?:wants|asks for|asked "
                              r"for)\s+(?!to (?:know|see|check|ask|discuss|talk|learn)\b)"
                              r"(?P<v>.+)$", FLAG)),
    ("PREFERENCE", re.compile(r"^(?:.{0,60}?[\s,;]|)(?:i|the user|user)\s*(?:"
                              r"'d like|would like|like|likes|love|loves|hate|hates|dislike|"
                              r"dislikes|don't like|do not like|doesn't like|does not like|"
                              r"can't stand|cannot stand|'m a fan of|am a fan of|is a fan of|"
                              r"wants? you to|'d want you to|would want you to)\s+(?:it when\s+|"
                              r"when\s+|to\s+)?(?!(?:that|this|it)(?: idea)?$)(?P<v>.+)$",
                              FLAG)),
    ("PREFERENCE", re.compile(LEAD + r"(?:my|the user's|their|his|her) favou?rite [\w -]{1,30}? "
                              r"(?:is|are)\s+(?P<v>.+)$|^please (?:use|keep|write|prefer)\s+"
                              r"(?P<v2>.+)$", FLAG)),
    ("STATE", re.compile(r"^(?:right now,? |currently,? |in \w+,? |our )?(?:the\s+)?"
                         r"(?P<e>[\w.'-]{1,40}(?: [\w.'-]{1,40}){0,2})\s+(?P<a>is currently on|"
                         r"are currently on|is now on|are now on|currently runs on|"
                         r"currently uses|now uses|(?:is|are) running|(?:is|are) set to|"
                         r"defaults? to|(?:is|are) configured (?:with|to)|points? to|"
                         r"depends on|(?:is|are) backed by|(?:is|are) pinned to|"
                         r"(?:is|are) owned by|(?:is|are) maintained by|(?:is|are) managed by|"
                         r"(?:is|are) served (?:by|from)|sits? behind|(?:is|are) behind|"
                         r"stores|talks to|connects to|(?:is|are) capped at|"
                         r"(?:is|are) limited to|(?:is|are) scheduled (?:for|at|to)|"
                         r"retains|keeps|targets|takes about|takes|take about)\s+(?P<v>.+)$",
                         FLAG)),
    ("STATE", re.compile(r"^(?:right now,? |currently,? |our )?(?:the\s+)?(?P<e>[\w.'-]{1,40}"
                         r"(?: [\w.'-]{1,40}){0,3})\s+(?:is|are)\s+(?:now\s+|currently\s+)?"
                         r"(?P<a>)(?P<v>(?:v|~|at |about |around |roughly |under |over |at most |"
                         r"at least )?\d.*)$", FLAG)),
    ("REFERENCE", re.compile(r"^(?P<e>.{0,200}?)\b(?P<v>[a-z][a-z0-9+.-]{0,15}://[^\s,;]+"
                             r"[^\s,;.]|[\w-]{1,63}(?:\.[\w-]{1,63}){1,5}/[^\s,;]*[^\s,;.])",
                             FLAG)),
    ("EVENT", re.compile(r"^" + WHEN + r",?\s*(?P<v>.+)$", FLAG)),
    # "... went down last night": a past-tense verb, the time at the end.
    ("EVENT", re.compile(r"^(?P<v>.{0,300}?\b(?:\w{2,30}ed|went|ran|broke|took|hit|lost|fell|"
                         r"sent|shipped|had|got)\b.{0,300}?)\s+" + WHEN + r"$", FLAG)),
]
