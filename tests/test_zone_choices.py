"""The settings page offers canonical zones only, grouped by region; the user's own stays."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from lightnote.accounts.zone_choices import canonical_zones, zone_groups

pytestmark = pytest.mark.django_db


def test_canonical_zones_leave_out_aliases_and_keep_the_main_ones() -> None:
    zones = set(canonical_zones())

    assert {"Asia/Shanghai", "America/New_York", "Europe/London", "UTC"} <= zones
    assert not {"Asia/Chungking", "US/East-Indiana", "W-SU", "Asia/Calcutta"} & zones
    assert 250 < len(zones) < 450


def test_zones_are_grouped_by_region_and_a_users_alias_is_kept() -> None:
    groups = dict(zone_groups("Asia/Calcutta"))

    assert "Asia/Shanghai" in groups["Asia"]
    assert "Asia/Calcutta" in groups["Asia"]
    assert groups["UTC"] == ["UTC"]


def test_the_settings_page_renders_optgroups_and_refuses_an_alias(user: Any) -> None:
    client = Client()
    client.force_login(user)

    html = client.get("/settings/").content.decode()
    refused = client.post("/settings/", {"time_zone": "Asia/Chungking", "language": "zh-CN"})

    assert '<optgroup label="Europe">' in html
    assert 'value="Asia/Chungking"' not in html
    assert 'id="zone-search"' in html
    assert refused.status_code == 400
