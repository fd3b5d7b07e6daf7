"""Immutable fields judged on what the API server stores (core/lifecycle.py).

The fixtures follow Kubernetes' documented behaviour: a StatefulSet's `volumeClaimTemplates`
cannot change (apps validation: only replicas, template, updateStrategy, ordinals,
persistentVolumeClaimRetentionPolicy and minReadySeconds may), but the embedded claims'
`apiVersion` and `kind` are dropped when the object is decoded, and the defaulters give each
claim `volumeMode: Filesystem` and `status.phase: Pending`. Writing those out is no change.
"""
from __future__ import annotations

from deployah_plan.render.words.warning import message
from deployah_plan.core.planner import PlanRequest, make_plan
from deployah_plan.manifests import split_stream
from deployah_plan.model import Header

STATEFULSET = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: vault
spec:
  serviceName: vault-internal
  selector: {matchLabels: {app: vault}}
  template:
    metadata: {labels: {app: vault}}
    spec:
      containers: [{name: vault, image: "hashicorp/vault:1.20.1"}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 10Gi}}
"""
TYPED = STATEFULSET.replace("  - metadata: {name: data}\n",
                            "  - apiVersion: v1\n    kind: PersistentVolumeClaim\n    metadata: {name: data}\n")


def _failures(previous: str, desired: str) -> list[str]:
    plan = make_plan(PlanRequest(Header("vault", "vault", revision=2, previous_revision=1),
                                 split_stream(previous, "previous"), split_stream(desired, "desired")))
    return [message(w) for w in plan.warnings if w.fails]


def test_type_metadata_added_to_claim_templates_is_not_a_change_the_server_stores() -> None:
    # vault 0.34 and harbor 1.18 add these two lines; the upgrade succeeds.
    assert _failures(STATEFULSET, TYPED) == []
    assert _failures(TYPED, STATEFULSET) == []


def test_defaults_written_out_are_not_a_change() -> None:
    explicit = TYPED.replace("      accessModes: [ReadWriteOnce]\n",
                             "      accessModes: [ReadWriteOnce]\n      volumeMode: Filesystem\n")
    explicit += "    status: {phase: Pending}\n"
    assert _failures(STATEFULSET, explicit) == []


def test_a_real_claim_template_change_still_fails() -> None:
    bigger = TYPED.replace("storage: 10Gi", "storage: 20Gi")
    (message,) = _failures(STATEFULSET, bigger)
    assert "StatefulSet vault/vault: this upgrade will fail" in message
    assert "spec.volumeClaimTemplates" in message
    block = STATEFULSET.replace("      accessModes: [ReadWriteOnce]\n",
                                "      accessModes: [ReadWriteOnce]\n      volumeMode: Block\n")
    assert len(_failures(STATEFULSET, block)) == 1
