"""Resolution: which mentions are one entity (short forms, addresses, name variants)."""

from vyre.resolve.identity import ENTITY_KINDS, Identities
from vyre.resolve.names import (
    domain_cores,
    entity_id,
    fold,
    local_part_forms,
    org_core,
    org_forms,
    org_key,
    org_leads,
    person_key,
)

__all__ = [
    "ENTITY_KINDS",
    "Identities",
    "domain_cores",
    "entity_id",
    "fold",
    "local_part_forms",
    "org_core",
    "org_forms",
    "org_key",
    "org_leads",
    "person_key",
]
