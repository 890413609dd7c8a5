"""Word lists the rules lean on. Kept small and readable; extend with care and a test."""

from __future__ import annotations


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Given names that are also ordinary capitalised words at a sentence start.
AMBIGUOUS_FIRST = words("Will Joy Mark Jack Jan Don Max Ray Rob Ruby Ivy Iris Hazel Bob Kim Lee")

# Last words that make a capitalised phrase an organisation's name.
ORG_WORDS = words("""
Architects Architecture Dental Dentistry Orthodontics Roofing Legal Law Lawyers Attorneys
Labs Lab Group Partners
Associates Studio Studios Agency Consulting Consultants Capital Ventures Holdings Foods Bakery
Bakeries Cafe Clinic Clinics Health Healthcare Hospital Pharmacy Bank Insurance Realty
Properties Construction Builders Plumbing Electric Electrical Motors Logistics Press Publishing
Systems Software Technologies Solutions Industries Foundation Institute University College
Academy Council Trust Society Gallery Museum Hotel Hotels Restaurant Brewery Winery Farms
Nursery Landscaping Interiors Fitness Salon Veterinary Optical Opticians Accounting Accountants
Bookkeeping Marketing Printing Robotics Airlines Tours Transport Shipping Freight Outfitters
Apparel Jewelers Florists Movers Dairy Grocers Pantry Coffee Roasters Surgery Therapy Chambers
Books Bookshop Booksellers Collective Cooperative Co-op Warehousing Cycles Bikes Analytics
Freight Capital Media Works Network Networks Consultancy
""")

# Org words dropped when comparing names with domains and short forms ("Keel & Ash").
ORG_NOISE = ORG_WORDS | words("and & the of")

# Head nouns of job titles: "the office manager", "project architect", "head of design".
TITLE_HEADS = words("""
manager architect director engineer designer lead owner founder cofounder co-founder ceo cto
cfo coo cmo vp president partner counsel attorney lawyer solicitor accountant dentist
hygienist assistant coordinator administrator officer head principal consultant analyst
developer producer editor receptionist planner contractor estimator foreman supervisor
specialist representative rep paralegal secretary chair advisor adviser scientist researcher
strategist copywriter writer marketer recruiter bookkeeper controller treasurer surveyor
technician doctor nurse orthodontist surgeon therapist chef baker teacher professor dean
curator photographer illustrator pm intern associate student postdoc lecturer auditor
physio physiotherapist vet veterinarian pharmacist optometrist midwife paramedic mechanic
electrician plumber carpenter clerk librarian registrar actuary economist statistician
ecologist biologist chemist physicist journalist reporter programmer buyer underwriter
trustee
""")

MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
WEEKDAYS = {
    name: i
    for i, names in enumerate(
        [
            ("monday", "mon"),
            ("tuesday", "tue", "tues"),
            ("wednesday", "wed"),
            ("thursday", "thu", "thurs"),
            ("friday", "fri"),
            ("saturday", "sat"),
            ("sunday", "sun"),
        ]
    )
    for name in names
}

# Capitalised words that never start or fill a person's or an org's name. "Claude" is the
# assistant itself in every transcript Vyre reads ("Claude Code", "ask Claude").
STOP_CAPS = words("""
I I'm I'll I've I'd A An The This That These Those Our My Your Their His Her Its We You He She
They It If When While Where What Which Who Why How And But Or So Then Also Please Thanks Thank
Hi Hello Hey Dear Yes No Not Ok OK Okay Sure Great Good Nice Cool Done Let Let's Can Could
Would Should Will Shall May Might Must Do Does Did Is Are Was Were Be Been Have Has Had Get Got
Make Send Email Call Ask Tell Draft Write Update Check Add Remove Fix Use Run Open Close Move
Meet Met Talk Reply Forward Note Remember Today Tomorrow Yesterday Now Next Last First Second
New Old All Any Some Each Every Both Few Many Most More Less Just Only Even Still Here There
Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April June July
August September October November December Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec
API APIs HTTP HTTPS JSON YAML URL URLs CSS HTML SQL CLI UI UX PR PRs CI CD README TODO FAQ PDF
CSV SDK DNS SSH SSL TLS AWS GCP VM DB ID IDs JS TS
Mr Mrs Ms Dr Prof Sir Madam Team Everyone Anyone Someone Nobody Client Clients Customer Users
Project Site Page Home About Contact Booking Intranet Launch Deadline Invoice Meeting Planning
Weekly Daily Monthly Morning Afternoon Evening Week Month Year Q1 Q2 Q3 Q4 Section Step Phase
Note Notes Summary Plan Goal Goals Issue Issues Bug Bugs Feature Features Test Tests Error
To From Cc Bcc Subject Re Fwd Sent Date Attachments Regards Best Cheers Kind Warm
Claude None True False Null NaN Self Optional Any Dict List
""")

# Code hosts and placeholders: never an org's domain.
IGNORED_DOMAINS = frozenset(
    {
        "github.com",
        "gitlab.com",
        "bitbucket.org",
        "example.com",
        "example.org",
        "example.net",
        "localhost",
        "gist.github.com",
        "raw.githubusercontent.com",
        "githubusercontent.com",
    }
)

# Honorifics before a name: "Dr. Matthias Kohl", "Ms Adeleke".
HONORIFICS = ("Dr", "Ms", "Mr", "Mrs", "Mx", "Prof", "Professor", "Dame", "Sir")

# Kinship and personal-role nouns: "my brother Mateo", "our accountant Ingrid".
KINSHIP = words("""
brother sister mother father mum mom dad mam mummy mommy daddy son daughter wife husband
partner fiance fiancé fiancee fiancée girlfriend boyfriend gf bf cousin aunt auntie uncle
niece nephew grandmother grandfather grandma grandpa granny nan nana gran grandparents
grandson granddaughter stepmother stepfather stepson stepdaughter stepbrother stepsister
brother-in-law sister-in-law mother-in-law father-in-law son-in-law daughter-in-law parents
kids kid children child baby godmother godfather goddaughter godson friend neighbour neighbor
flatmate roommate housemate colleague coworker co-worker boss manager mentor accountant
bookkeeper lawyer solicitor doctor dentist physio physiotherapist therapist gp vet trainer
coach tutor teacher landlord landlady cleaner nanny babysitter
""")

# Lowercase particles inside a name: "Anouk de Jong", "Ana da Silva".
NAME_PARTICLES = (
    "de",
    "da",
    "do",
    "dos",
    "das",
    "di",
    "del",
    "della",
    "van",
    "von",
    "der",
    "den",
    "ter",
    "ten",
    "le",
    "la",
    "du",
    "bin",
    "binti",
    "al",
    "el",
    "ibn",
)

# Nouns that say a name is an organisation: "Sunward (the agency that runs ...)",
# "Fennel Cycles, an e-bike shop in Bristol", "Osprey Warehousing, their 3PL".
ORG_NOUNS = words("""
company firm agency startup start-up business shop store studio publisher collective
charity nonprofit non-profit foundation bank vendor supplier consultancy retailer brand
manufacturer distributor 3PL 3pl practice clinic school university lab cooperative co-op
association society union council organisation organization institute nonprofit insurer
broker carrier marketplace platform provider contractor subcontractor wholesaler chain
""")

# Teams named after their function, not an org: "the Platform team", "the Data team".
DEPARTMENTS = words("""
Platform Data Design Product Marketing Sales Engineering Support Finance Legal Ops
Operations Security Infra Infrastructure DevOps Frontend Backend Mobile Web Growth Research
Analytics HR People Finance Accounts Admin Core Release QA IT BI Docs Content Brand Customer
Success Leadership Exec Board Partnerships Procurement Compliance Risk Audit
""")

# File extensions that are also country suffixes ("main.py", "notes.md", "run.sh"): a bare
# name ending in one is a file unless it is written as a link.
FILE_EXTENSIONS = words("""
py md sh rs ts js go rb php cs cc ps ml mk so mm lock
""")
# Extensions of config and data files: "profiles.yml.example" and "settings.json.bak" are
# files wherever the extension stands in the name.
DATA_EXTENSIONS = words("""
yml yaml json toml txt cfg ini env conf csv tsv xml lock md py js ts sql html css log bak
sample dist template tpl j2 sh
""")

# Nouns that end a place's or an event's name, never a family name: "London Bridge",
# "Victoria Station", "Times Square", "Paris Agreement".
NOT_SURNAMES = words("""
Street Road Avenue Boulevard Bridge Station Square Airport Terminal Cathedral Abbey Palace
Castle Stadium Arena Theatre Theater Mall Plaza Harbour Harbor Pier Gardens Zoo Wall
Agreement Treaty Act Prize Award Awards Day Festival Conference Summit Expo Week Weekend
Cup League Championship Olympics Marathon Parade Fair Market Island Islands Mountains Falls
Beach Bay Coast County State Province Republic Kingdom Empire
""")
