"""The saved plan: the JSON document a plan is written as, and read back from.

A saved plan is the plan as one JSON document, its own versioned wire format apart from the
model (`Plan`, model.py) and from the other writers. `-o json` prints it; `--out FILE` writes it
with an `inputs` record beside the plan, sealed; `helm plan show FILE` reads it back and prints
it with any writer; `helm plan verify FILE` reads the record, makes the plan again and
compares; `helm plan schema` prints its schema.

    Plan ──write.py──▶ JSON document ──read.py──▶ Plan       (show: text, markdown, ... again)
                            │  ▲
        schema.py: the published schema (deployah_plan/schema/plan.schema.json), checked on reading
        inputs.py: the inputs record, made of what the planner read (`Inputs`, `Planned`)
        seal.py:   the keyed digests, and the seal over the document and its record

`format_version` (FORMAT_VERSION) is "MAJOR.MINOR": a minor version only adds (fields, warning
codes, impact kinds); a major version changes or removes something a consumer may read. The
reader takes this major version's documents, an older minor version's with its missing fields
given their defaults, and a newer minor version's with what it added skipped or kept as written.

write.py and read.py mirror each other, one function per model type: a new field goes in both,
and a new minor version here. The package reads the model; the writer takes the words a
document carries (a warning's `message`) from render/words/, and the reader none: what it needs
of an older document's words is its own (read.py).
"""
from __future__ import annotations

# 1.1 added list keys, line diffs, inner changes, retain, rollback/uninstall, live, drift, ownership;
# 1.2 added predicted failures, the phases each hook runs in, the hook counts of the summary, and
# whether a chart CRD changed in the chart;
# 1.3 the `inputs` record of a plan saved with --out (inputs.py), for `helm plan verify`;
# 1.4 added common changes (`common_changes`, and `common` on each field change said there);
# 1.5 added `desired` on each create (a change or a hook definition): the object it creates,
# Secret values masked; `highlights`, what text and markdown say first ("what matters");
# `impact`: what the deploy does to running things (core/impact/); the summary's
# count of drift this deploy sets back (`drift_reverted`); values the chart regenerates on every
# render (`regenerated` on a field change, and the summary's count of updates made only of them);
# a CRD's change by meaning (`crd_schema` on a change, `schema` on a chart CRD, `crd_description`
# on a field change); and the `kube-version-assumed` and `crd-version-removed` warning codes.
# 1.6 added `facts` on each warning and each impact: what its check or rule found, as typed values
# (deployah_plan/facts.py); the schema describes each code's and each impact kind's; `why` and
# `managers` on a drift and a drifted field; the `crd-change-unknown` and `empty-render` codes.
# 1.7 added the `traffic-gap` impact kind (a Service whose new selector meets none of the running
# pods); on a restart and a deferred restart, what each checksum annotation hashes
# (`other_checksums`, `hashed`, `hashed_metadata`, `hashed_unread`), and a workload at 0 replicas
# as a deferred restart; `warning` and `risk` highlights; the `kube-version-default` warning
# code, and `managers` on each field of `ssa-conflict`; `kept_by` and `taken_from` on a field change (what
# server-side apply leaves to, or takes from, another field manager); `regenerated_paths` on a
# create; and in the inputs record `render_stable`, the render's digest with the values the
# chart regenerates left out, which verify compares when the record has it.
# 1.8 added why each change: `cause` (chart, values, both) on each field change, each change
# and each hook definition, `attribution` (how the causes were found: none, chart, values,
# rendered), and `chart_defaults`, the new chart's defaults that changed under values the user
# does not set (core/causes.py). 1.8 also added `header.apply_method` (the apply method the plan
# assumed and why: method, reason, revision; null for an uninstall), `fields` on a create that
# adopts a live object (live -> applied), and the `uninstall-not-owned` and `cascade` codes.
# 1.9 added `adopted` in the summary (of the creates, those Helm adopts) and in the
# `force-replace` facts (the objects a server-side install adopts, which makes it fail).
FORMAT_VERSION = "1.9"

__all__ = ["FORMAT_VERSION", "inputs", "read", "schema", "seal", "write"]
