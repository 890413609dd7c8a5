"""Word lists the rules lean on. Kept small and readable; extend with care and a test."""

from __future__ import annotations


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Common given names across languages. A capitalised pair starting with one of these is a
# person; alone, one of these is a short form that resolves only to a full name in the room.
FIRST_NAMES = words("""
Aaron Abby Abdul Abigail Ada Adam Adrian Adriana Ahmed Aidan Aiko Aisha Akira Alan Alba Albert
Alberto Alejandro Alex Alexa Alexander Alexandra Alexis Alfie Ali Alice Alicia Alina Alison Alma
Amal Amanda Amara Amber Amelia Amir Amit Amy Ana Anders Andre Andrea Andreas Andrew Andy Angela
Angelo Anika Anil Anita Ann Anna Anne Annie Anthony Anton Antonio Anya Arjun Arnav Arthur Arun
Asha Ashley Astrid Aubrey Audrey Ava Avery Axel Aya Ayesha Barbara Beatriz Bella Ben Benjamin
Bernard Beth Bethany Bianca Blake Bob Bobby Boris Brad Bradley Brandon Brenda Brett Brian Bridget
Brooke Bruce Bruno Bryan Caleb Cameron Camila Carla Carlos Carmen Carol Caroline Carolyn Casey
Catherine Cecilia Celia Chad Charles Charlie Charlotte Chen Chiara Chloe Chris Christian
Christina Christine Christopher Claire Clara Claudia Colin Connor Conor Craig Cristina Curtis
Dale Dan Dana Daniel Daniela Danielle Daniyar Dara Darius Darren Dave David Dawn Dean Deborah
Deepa Deepak Denise Dennis Derek Devon Diana Diego Dimitri Dina Dmitri Dominic Don Donna Dora
Doris Dorothy Douglas Dylan Eamon Ed Eddie Edgar Edith Eduardo Edward Eileen Elena Eli Elias
Elif Elijah Elise Eliza Elizabeth Ella Ellen Ellie Eloise Emil Emilia Emily Emma Enrique Eric
Erica Erik Erin Esther Ethan Eva Evan Eve Ezra Fabian Fatima Felix Fernando Finn Fiona Florence
Francesca Francesco Francis Franco Freya Gabriel Gabriela Gareth Gary Gavin Gemma George
Georgia Gerald Gianna Gina Giovanni Giulia Glen Gloria Gordon Grace Graham Greg Gregory Greta
Hana Hannah Hans Harper Harriet Harry Hassan Hazel Heather Hector Heidi Helen Helena Henry
Hiro Hiroshi Holly Hugo Hussein Ian Ibrahim Ida Igor Ilse Imani Imogen Ines Ingrid Irene Iris
Isaac Isabel Isabella Isla Ismail Ivan Ivy Jack Jackson Jacob Jade Jake James Jamie Jan Jane
Janet Janice Jared Jasmine Jason Javier Jay Jean Jeff Jeffrey Jen Jenna Jennifer Jenny Jeremy
Jesse Jessica Jill Jim Jimmy Jin Jo Joan Joanna Joao Joe Joel Johan Johanna John Johnny Jon
Jonah Jonas Jonathan Jordan Jorge Jose Joseph Josh Joshua Joy Juan Julia Julian Juliana Julie
Julien Julio Juno Justin Kai Kamal Kara Karen Karim Karin Karl Kate Katherine Kathleen Kathryn
Katie Kayla Keith Kelly Ken Kenji Kenneth Kevin Khalid Kim Kiran Kirsten Klaus Kofi Kris
Kristen Kumar Kurt Kyle Lara Larry Laura Lauren Layla Leah Lee Leila Lena Leo Leon Leonardo
Lars Liam Lila Lily Lina Linda Lisa Liz Logan Lorenzo Louis Louise Luca Lucas Lucia Lucy Luis
Luka Luke Luna Lydia Mabel Maddie Madison Maggie Malik Manuel Mara Marc Marcel Marco Marcus
Margaret Maria Mariam Marie Marina Mario Marisol Mark Marta Martha Martin Mary Mateo Matt
Matteo Matthew Maureen Max Maya Mehmet Mei Megan Mia Michael Michelle Miguel Mika Mike Mila
Miles Milo Mina Mira Miriam Mohamed Mohammed Molly Monica Morgan Nadia Nancy Naomi Nasser
Natalia Natalie Nathan Neha Neil Nick Nicola Nicolas Nicole Niels Nikhil Nikita Nina Noah Noel
Nora Nuno Olga Oliver Olivia Omar Oscar Owen Pablo Paige Pamela Paolo Patricia Patrick Paul
Paula Pedro Penelope Peter Petra Philip Phoebe Pierre Pilar Piotr Pooja Priya Quentin Quinn
Rachel Rafael Rahul Raj Rajesh Ralph Ramon Rana Randy Raquel Ravi Ray Rebecca Reem Renee Rhys
Ricardo Richard Rick Riley Rita Rob Robert Roberto Robin Rohan Roman Ronald Rosa Rosie Ross
Ruby Rui Russell Ruth Ryan Sabrina Sadie Sahil Salma Sam Samantha Samir Samuel Sana Sandra
Sanjay Sara Sarah Sasha Scott Sean Sebastian Selena Serena Sergei Sergio Seth Shane Shannon
Sharon Shawn Sheila Shirin Shreya Simon Simone Sofia Sonia Sophia Sophie Stefan Stella Stephanie
Stephen Steve Steven Stuart Sunil Susan Suzanne Sven Sylvia Tamara Tanya Tara Ted Teresa Theo
Theodore Thomas Tim Timothy Tina Toby Todd Tom Tomas Tony Tracy Travis Trevor Troy Tyler
Uma Ursula Valentina Valeria Vanessa Vera Veronica Victor Victoria Vikram Vincent Viola Violet
Vivian Wade Walter Wanda Wayne Wei Wendy Wesley Will William Willow Xavier Yara Yasmin Yusuf
Yuki Yusuke Zach Zachary Zain Zara Zoe Zoey
""")

# Given names that are also ordinary capitalised words at a sentence start.
AMBIGUOUS_FIRST = words("Will Joy Mark Jack Jan Don Max Ray Rob Ruby Ivy Iris Hazel Bob Kim Lee")

# Last words that make a capitalised phrase an organisation's name.
ORG_WORDS = words("""
Architects Architecture Dental Dentistry Orthodontics Roofing Legal Law Lawyers Attorneys
Labs Lab Inc Inc. LLC LLP Ltd Ltd. GmbH Corp Corp. Corporation Company Co. Group Partners
Associates Studio Studios Agency Consulting Consultants Capital Ventures Holdings Foods Bakery
Bakeries Cafe Clinic Clinics Health Healthcare Hospital Pharmacy Bank Insurance Realty
Properties Construction Builders Plumbing Electric Electrical Motors Logistics Press Publishing
Systems Software Technologies Solutions Industries Foundation Institute University College
Academy Council Trust Society Gallery Museum Hotel Hotels Restaurant Brewery Winery Farms
Nursery Landscaping Interiors Fitness Salon Veterinary Optical Opticians Accounting Accountants
Bookkeeping Marketing Printing Robotics Airlines Tours Transport Shipping Freight Outfitters
Apparel Jewelers Florists Movers Dairy Grocers Pantry Coffee Roasters Surgery Therapy Chambers
Books Bookshop Booksellers
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
curator photographer illustrator pm intern associate
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

# Capitalised words that never start or fill a person's or an org's name.
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
""")

# Top-level domains that can end a bare domain name. File extensions are deliberately absent.
TLDS = words("""
com org net io co dev app ai uk de fr es it nl be ch at se no dk fi ie pt pl cz ca us au nz jp
in br mx za sg hk eu info biz tech site online studio design agency law legal dental health
clinic consulting capital ventures partners solutions systems software digital shop store
cloud email page space works tools group company inc llc ltd cafe coffee bakery build
""")

# TLDs that are words: stripped when matching a domain to an org (harlow.law is Harlow Law).
WORD_TLDS = TLDS - words(
    "com org net io co dev app ai uk de fr es it nl be ch at se no dk fi "
    "ie pt pl cz ca us au nz jp in br mx za sg hk eu info biz"
)

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

# Companies whose names carry no org word but that people name all the time. They are orgs
# wherever they appear; the hub rule keeps them out of the way when they are everywhere.
KNOWN_ORGS = words("""
Stripe PayPal Square Shopify Twilio SendGrid Mailchimp Mailgun Postmark Zendesk Intercom
HubSpot Salesforce Atlassian Jira Trello Asana Notion Figma Canva Slack Zoom Dropbox
Airtable Zapier Heroku Netlify Vercel Cloudflare DigitalOcean Linode Hetzner Fastly
Akamai Datadog Sentry PagerDuty Okta Auth0 Supabase Firebase MongoDB Snowflake Databricks
Anthropic OpenAI Google Microsoft Apple Amazon Meta Facebook Instagram LinkedIn Twitter
Oracle IBM Intel Nvidia Adobe Xero QuickBooks Intuit Gusto Deel Calendly DocuSign
Squarespace Wix WordPress Webflow GitHub GitLab Bitbucket Docker Mozilla Spotify Uber
Airbnb Etsy eBay
""")
