"""The study's recorded augmentation rate is CPU seconds per problem, the unit its budget is in."""

from __future__ import annotations

import json
from pathlib import Path

from benchmorph.evaluation.study.costs import Costs, Rate, load_costs, save_costs


def test_augment_rate_round_trips_as_cpu_seconds(tmp_path: Path) -> None:
    path = tmp_path / "costs.json"
    save_costs(Costs(augment=Rate(12.0, 4)), path)
    assert json.loads(path.read_text())["augment_cpu"] == [12.0, 4]
    assert load_costs(path).augment.per_unit == 3.0


def test_an_older_wall_seconds_augment_rate_is_not_read_as_cpu_seconds(tmp_path: Path) -> None:
    path = tmp_path / "costs.json"
    path.write_text(json.dumps({"augment": [100.0, 2]}))
    assert load_costs(path).augment.per_unit is None
