"""The warning codes core/impact/ makes, in words (render/words/warning.py, section impact): the
facts and the exact sentence, as helm plan has always said it."""
from __future__ import annotations

from deployah_plan.codes import Code
from deployah_plan.facts import PvcExpandRefused
from deployah_plan.model import ResourceRef, warn
from deployah_plan.render.words.warning import message

PVC = ResourceRef("v1", "PersistentVolumeClaim", "shop", "data")


def test_pvc_expand_refused() -> None:
    warning = warn(PvcExpandRefused(storage_before="8Gi", storage_after="16Gi", storage_class="slow"), PVC)
    assert (warning.code, warning.fails) == (Code.PVC_EXPAND_REFUSED, True)
    assert message(warning) == (
        "PersistentVolumeClaim shop/data: storage 8Gi -> 16Gi: StorageClass slow does not allow volume expansion: the "
        "API server refuses it and this upgrade fails")
