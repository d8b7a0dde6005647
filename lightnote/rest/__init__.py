"""DRF plumbing shared by every API: serializers, pagination, versioning, idempotency, schema,
guards."""
