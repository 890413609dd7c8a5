"""The bundled world's prompts of the kinds people type beyond names (issue 8), in a module of
their own beside the world builder, which calls `extend` once its own prompts are in.

Enrich prompts name nobody by full name: an address, a domain, a surname after an honorific
or alone, a title, a topic ("when does the portal go live?"), deixis ("this repo", "our
client") or a question about what is due. Irrelevant prompts are code talk that says
"client", "deadline", "due" or a capitalised class name, and must add nothing.

Each expectation is (room, subject, rel, object) of a gold fact the builder already lists.
"""

from __future__ import annotations

KA, HL, BR, SD, SR, UN = "keel-ash", "harlow", "bramble", "summit-dental", "summit-roofing", "unfiled"

_PRIYA = [(KA, "Priya Anand", "works_at", "Keel & Ash Architects"),
          (KA, "Priya Anand", "has_title", "project architect")]
_DANA_H = [(HL, "Dana Reyes", "works_at", "Harlow Legal"),
           (HL, "Dana Reyes", "has_title", "office manager")]
_DANA_B = [(BR, "Dana Reyes", "works_at", "Bramble Dental"),
           (BR, "Dana Reyes", "has_title", "practice manager")]
_MARCUS = [(HL, "Marcus Bell", "works_at", "Harlow Legal"),
           (HL, "Marcus Bell", "has_title", "managing partner")]
_HELEN = [(BR, "Helen Quist", "works_at", "Bramble Dental"),
          (BR, "Helen Quist", "has_title", "clinical lead")]
_LENA = [(SD, "Lena Park", "works_at", "Summit Dental"),
         (SD, "Lena Park", "has_title", "office coordinator")]
_LAUNCH = (KA, "launch", "deadline", "2026-10-09")
_INTRANET = (HL, "intranet launch", "deadline", "2026-10-02")
_WIDGET = (BR, "booking widget", "deadline", "2026-10-01")
_PORTAL = (SD, "portal", "deadline", "2026-10-14")
_QUOTE = (SR, "quote form", "deadline", "2026-10-20")

# (room, prompt, expected facts)
ENRICH = [
    # an address or a domain finds its person or org
    (HL, "reply to dana@harlow.law about the search filters", _DANA_H),
    (BR, "forward the slot export to dreyes@brambledental.com", _DANA_B),
    (SR, "send the quote form copy to marco@summitroofing.com",
     [(SR, "Marco Silva", "works_at", "Summit Roofing"), _QUOTE]),
    (SD, "Can you draft something for lena@summitdental.com about the reminder texts?", _LENA),
    (KA, "update the DNS records for keelash.com",
     [(KA, "Keel & Ash Architects", "client_of", "owner")]),
    # a surname, after an honorific or capitalised mid-sentence
    (SD, "Ask Ms Park whether the reminder texts look right", _LENA),
    (HL, "send Mr. Bell the revised sitemap", _MARCUS),
    (BR, "Has Quist seen the treatment list yet?", _HELEN),
    (KA, "put together the handover notes for Dr Anand", _PRIYA),
    # a title said whole points at its one person
    (HL, "ask the office manager about the staff photos", _DANA_H),
    (HL, "does the managing partner have to approve the homepage?", _MARCUS),
    (BR, "the clinical lead wants the treatment list reordered", _HELEN),
    # a topic: what is due, by its words
    (SD, "when does the portal go live?", [_PORTAL]),
    (BR, "is the booking widget still on track?", [_WIDGET]),
    (HL, "how long until the intranet launch?", [_INTRANET]),
    (SR, "what's left before the quote form ships", [_QUOTE]),
    (KA, "are we on schedule for the site launch?", [_LAUNCH]),
    (SD, "anything due this month?", [_PORTAL]),
    # deixis: this repo, our client
    (KA, "which repo is this project in?", [(KA, "keelash-site", "repo_for", "Keel & Ash Architects")]),
    (HL, "what's the remote for our repo?", [(HL, "harlow-intranet", "repo_for", "Harlow Legal")]),
    (HL, "which repo is the intranet in?", [(HL, "harlow-intranet", "repo_for", "Harlow Legal")]),
    (KA, "what did the client ask for on the gallery page?",
     [(KA, "Keel & Ash Architects", "client_of", "owner")]),
    (SR, "our client wants the quote form in orange",
     [(SR, "Summit Roofing", "client_of", "owner"), _QUOTE]),
]

# (room, prompt): code talk with the words a careless matcher would take for a fact
IRRELEVANT = [
    (KA, "set a deadline on the fetch call so it aborts after 5s"),
    (HL, "the client should retry on 503 with backoff"),
    (BR, "make the ClientCard component show the booking date"),
    (SD, "add a due_date column to the reminders table"),
    (SR, "Deadline exceeded errors from the grpc channel, why?"),
    (KA, "rename the Launch class to Release"),
    (HL, "the HTTP client in search.ts needs a timeout"),
    (SD, "the client_id env var is missing in CI"),
    (SR, "why does the Customer model not validate the email field?"),
    (BR, "what is due in the Stripe webhook payload?"),
]


def extend(g, cwd: dict[str, str]) -> None:
    """Add these prompts to the builder's gold `g`; `cwd` maps each room to its folder."""
    for room, prompt, expect in ENRICH:
        g.enrich.append({"id": f"P{len(g.enrich) + 1}", "room": room, "cwd": cwd[room],
                         "prompt": prompt, "expect": [g.id(*e) for e in expect]})
    for room, prompt in IRRELEVANT:
        g.irrelevant.append({"room": room, "cwd": cwd[room], "prompt": prompt})
