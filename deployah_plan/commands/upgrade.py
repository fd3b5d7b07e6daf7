"""`helm plan upgrade RELEASE CHART`: plan what `helm upgrade --install` would do.

With a cluster, the live state of every kind the release uses is read while the chart renders
(one LIST per kind and namespace, GET only: sources/cluster.py): first the kinds of the previous
release, then, once rendered, the kinds only the new chart has. It feeds the drift and
ownership checks; an unreachable cluster leaves them out of the plan, with a note (an error
with --require-cluster).
"""
from __future__ import annotations

import os
import threading
import time
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from msgspec import Struct, structs, field

from deployah_plan import deepjson
from deployah_plan.release import api_target as targets
from deployah_plan.release import live_objects as live_state
from deployah_plan.release.revisions import connect, rendered
from deployah_plan.release.store import Releases
from deployah_plan.sources.helm_commands import major, reads_standard_input, values_on_stdin
from deployah_plan.commands import causes, upgrade_flags
from deployah_plan.commands.upgrade_flags import ChartSource, DeployFlags
from deployah_plan.core.diff import LINE_CONTEXT
from deployah_plan.errors import HelmError, ManifestError, ReleaseError, UsageError
from deployah_plan.flags import UPGRADE, Reach, helm_args, request_fields
from deployah_plan.manifests import Rendered, split_stream
from deployah_plan.facts import (
    LookupOffline, PreviousNotDeployed, Reinstall, ReuseValuesOffline, SubchartsCarried, ValuesReused, VersionSource,
)
from deployah_plan.model import ApplyMethod, Attribution, Header, Warning, warn
from deployah_plan.redact import hide_userinfo
from deployah_plan.sources import chart as charts, helm_versions
from deployah_plan.sources.early import HelmCalls
from deployah_plan.sources.helm import Helm, ReleaseState, hooks_stream
from deployah_plan.sources.helm_text import after_progress, crds_as_sources, documents, record_crds_stream
from deployah_plan.sources.kubeconfig import resolve_settings
from deployah_plan.sources.workdir import Workdir
from deployah_plan.sources.workers import Call, Workers, workers
from deployah_plan.yamlkube import Known

if TYPE_CHECKING:  # imported in plan_upgrade while helm runs (see there)
    from deployah_plan.planfile.inputs import Planned
    from deployah_plan.live_snapshot import LiveSnapshot


class ValueFlags(Struct, frozen=True, kw_only=True):
    """The values flags. Helm merges them in one order whatever the command-line order (files,
    --set-json, --set, --set-string, --set-file, --set-literal: pkg/cli/values/options.go)."""

    files: Sequence[str] = ()
    set_json: Sequence[str] = ()
    set: Sequence[str] = ()
    set_string: Sequence[str] = ()
    set_file: Sequence[str] = ()
    set_literal: Sequence[str] = ()

    def args(self) -> list[str]:
        return helm_args(self, Reach.VALUES)

    def any(self) -> bool:
        return bool(self.args())

    def check_files(self) -> None:
        for path in self.files:
            if "://" not in path and path != "-" and not os.path.isfile(path):
                raise UsageError(f"values file {path} not found", "check the path given to -f/--values")
        for item in self.set_file:
            _, _, path = item.partition("=")
            if path and path != "-" and not os.path.isfile(path):  # `key=-`: standard input, as helm reads it
                raise UsageError(f"file {path} given to --set-file not found", "check the path after '=' in --set-file")


class UpgradeOptions(Struct, frozen=True, kw_only=True):
    release: str
    chart: str
    values: ValueFlags = field(default_factory=ValueFlags)
    version: str | None = None
    repo: str | None = None
    devel: bool = False
    kube_version: str | None = None
    api_versions: Sequence[str] = ()
    skip_crds: bool = False
    reuse_values: bool = False
    reset_values: bool = False
    reset_then_reuse_values: bool = False
    render: str = "auto"  # auto | template | server
    namespace: str | None = None
    kube_context: str | None = None
    kubeconfig: str | None = None
    debug: bool = False
    no_drift: bool = False  # do not read the cluster: no drift, no ownership check
    require_cluster: bool = False  # fail when the live state cannot be read
    take_ownership: bool = False  # as helm upgrade --take-ownership
    server_side: str = "auto"  # Helm 4's --server-side: auto (the previous release's method), true, false
    force_conflicts: bool = False  # Helm 4's --force-conflicts
    disable_openapi_validation: bool = False  # as helm's: no strict field validation
    source: ChartSource = field(default_factory=ChartSource)
    deploy: DeployFlags = field(default_factory=DeployFlags)
    line_context: int = LINE_CONTEXT  # --context: unchanged lines around a multi-line value's changes
    # `helm plan kube-upgrade` (commands/kube_upgrade.py): the chart is the release's own stored
    # chart (release/stored_chart.py), so the --reuse-values note on a newer chart's defaults
    # does not apply; `carried`: the objects its subcharts made, taken from the stored manifest
    # into every render, `subcharts` their names; `release_state`, `releases`: as it read them.
    stored_chart: bool = False
    carried: str = ""
    subcharts: tuple[str, ...] = ()
    release_state: ReleaseState | None = None
    releases: Releases | None = None  # the release reads kube-upgrade holds (release/stored_scope.py)
    helm_timeout: float | None = None  # seconds each helm call may take (None: no limit)


def upgrade_options(params: Mapping[str, Any], *, debug: bool) -> UpgradeOptions:
    """The request from the command's parsed parameters (flags.UPGRADE says which field each fills)."""
    return UpgradeOptions(
        release=params["release"], chart=params["chart"], debug=debug,
        values=ValueFlags(**request_fields(UPGRADE, params, "values")),
        source=ChartSource(**request_fields(UPGRADE, params, "source")),
        deploy=DeployFlags(**request_fields(UPGRADE, params, "deploy")),
        **request_fields(UPGRADE, params, "upgrade"),
    )


def _render_mode(options: UpgradeOptions) -> str:
    if options.render != "auto":
        return options.render
    return "template" if live_state.offline() else "server"


class _Values(Struct, frozen=True):
    """The values flags `helm template` is given, and what `--values -` among them reads from
    standard input (`stdin`): the release's values, as JSON, so that they are never written to
    a file; None when no flag reads it."""

    args: tuple[str, ...] = ()
    stdin: str | None = None


def _given(values: ValueFlags) -> _Values:
    """The user's own values flags, as helm template is given them."""
    return _Values(tuple(values.args()))


def _values_for_template(releases: Releases, options: UpgradeOptions, state: ReleaseState, namespace: str,
                         workdir: Workdir, notes: list[Warning], helm_major: int) -> _Values:
    """The values flags that make `helm template` see the values `helm upgrade` would use
    (pkg/action/upgrade.go reuseValues), read from the release's storage (release/store.py)."""
    user = _given(options.values)
    current = state.current
    if current is None or options.reset_values:
        return user
    if options.reuse_values:
        computed = releases.values(options.release, namespace, current.revision, True, helm_major)
        if not options.stored_chart:
            notes.append(warn(ReuseValuesOffline()))
        return _with_release_values(computed, options.values, workdir)
    if options.reset_then_reuse_values or not options.values.any():
        # Read with the release (sources/helm.py), unless it could not be printed faithfully.
        previous = current.values if current.values is not None else releases.values(options.release, namespace,
                                                                                      current.revision)
        if not previous:
            return user
        if not options.values.any():
            notes.append(warn(ValuesReused(revision=current.revision)))
        return _with_release_values(previous, options.values, workdir)
    return user


def _with_release_values(values: dict[str, Any], user: ValueFlags, workdir: Workdir) -> _Values:
    """The release's values given to helm first, then the user's own: on standard input
    (`--values -`), unless a flag of the user's reads it (`-f -`, `--set-file key=-`); then in a
    file of the plan's private folder, removed with it."""
    text = deepjson.dumps(values)  # as deep as helm wrote them
    if not reads_standard_input(user.files, user.set_file):
        return _Values(("--values", "-", *user.args()), text)
    folder = workdir.path
    written = sum(name.startswith("previous-values-") for name in os.listdir(folder))
    path = os.path.join(folder, f"previous-values-{written}.json")
    with open(path, "w") as out:
        out.write(text)
    return _Values(("--values", path, *user.args()))


def _from_record(record: dict[str, Any], known: Known | None = None) -> Rendered:
    manifest = split_stream(record.get("manifest") or "", "helm upgrade --dry-run=server", known)
    hooks = split_stream(hooks_stream(record.get("hooks") or []), "helm upgrade --dry-run=server hooks", known)
    crds = split_stream(record_crds_stream(record), "the chart's crds/", known)
    return Rendered(manifest.resources, hooks.hooks, manifest.crds + crds.crds,
                    manifest.dropped + hooks.dropped + crds.dropped)


def _values_from_release(options: UpgradeOptions) -> bool:
    """Whether `helm template` is given values read from the release (_values_for_template)."""
    return not options.reset_values and (options.reuse_values or options.reset_then_reuse_values
                                          or not options.values.any())


class _Render(Struct, frozen=True):
    """One render of the new release: helm's text (`helm template`'s stream; "" for a server
    render, a JSON record) and, unless it was asked for the text alone, its documents."""

    text: str
    documents: Rendered | None = None


def _render(helm: Helm, options: UpgradeOptions, mode: str, chart: str, namespace: str,
            values: _Values, helm_major: int, upgrade: bool, starting: threading.Event | None = None,
            parse: bool = True, known: Known | None = None) -> _Render:
    """The new release as helm renders the chart at path `chart`: `helm template` with
    `values` (mode "template"), or `helm upgrade --dry-run=server` with the user's own (mode
    "server"). `starting` is set as the helm process is about to start. `parse=False`: `helm
    template`'s text alone (a second render, read by `_varying`). `known`: the documents of the
    release as stored, taken where the render repeats them (yamlkube.py `Known`)."""
    deploy = options.deploy
    if mode == "server":
        # The user's own values; the previous values on standard input (`between`), when given.
        given = list(values.args) if values.stdin is not None else options.values.args()
        args = given + helm_args(options, Reach.SERVER_RENDER) + deploy.render_args()
        if starting is not None:
            starting.set()
        return _Render("", _from_record(helm.dry_run_upgrade(options.release, chart, namespace, args, values.stdin),
                                        known))
    args = list(values.args)
    if options.kube_version:
        args += ["--kube-version", options.kube_version]
    # With an explicit --kube-version, render as a cluster of that version would (its API
    # versions in .Capabilities); helm template's own defaults otherwise.
    for api in dict.fromkeys([*options.api_versions, *targets.served_api_versions(options.kube_version or "")]):
        args += ["--api-versions", api]
    args += deploy.render_args()
    # Helm 3's `helm template --include-crds` sends the chart's CRDs through the
    # post-renderer, which an install never does (it creates them from crds/ first), and
    # the post-renderer may drop the `# Source:` lines that mark them: read them apart.
    apart = bool(deploy.post_renderer) and helm_major < 4
    if starting is not None:
        starting.set()
    text = helm.template(options.release, chart, namespace, args, upgrade=upgrade, include_crds=not apart,
                         stdin=values.stdin)
    if options.carried:
        text = text.rstrip("\n") + "\n" + options.carried
    if deploy.dependency_update:
        text = after_progress(text)
    if apart:
        # After the rest: documents that lost their `# Source:` line must not follow a
        # crds/ one, or they would be read as part of that file.
        text = text.rstrip("\n") + "\n" + crds_as_sources(helm.show_crds(chart), charts.inspect(chart).name)
    return _Render(text, split_stream(text, "helm template", known) if parse else None)


def _render_again(helm: Helm, options: UpgradeOptions, mode: str, chart: str, namespace: str,
                  values: _Values, helm_major: int, upgrade: bool) -> _Render:
    """The second render of the same inputs, after the first: `--dependency-update` has written
    the chart's charts/ folder by then, and is not asked again."""
    once = structs.replace(options, deploy=structs.replace(options.deploy, dependency_update=False))
    return _render(helm, once, mode, chart, namespace, values, helm_major, upgrade=upgrade, parse=False)


def _varying(first: _Render, again: _Render) -> Rendered:
    """The documents of the second render that a value made anew could be in. A document whose
    text the first render has too has no such value (core/regenerated.py would find every
    field of it equal), so only the others are parsed: for most charts a few documents rather
    than the whole release a second time; so too of the render for another Kubernetes version
    (core/version_render.py). The text is cut at its `---` lines, which in YAML always start a
    document."""
    if again.documents is not None:  # a server render: a record, not a stream
        return again.documents
    seen = set(documents(first.text))
    kept = [document for document in documents(again.text) if document not in seen]
    return split_stream("".join(f"---\n{document}" for document in kept), "helm template (the second render)")


class _Renderer(Struct, frozen=True):
    """What every render of one plan shares (`_render`): helm, the request, the render mode, the
    chart's path, the namespace and helm's major version; the documents of the release as stored
    and of the render, each read once where the other repeats them (`known`)."""

    helm: Helm
    options: UpgradeOptions
    mode: str
    chart: str
    namespace: str
    helm_major: int
    releases: Releases
    known: Known = field(default_factory=Known)

    def render(self, values: _Values, *, upgrade: bool, starting: threading.Event | None = None,
               parse: bool = True) -> _Render:
        return _render(self.helm, self.options, self.mode, self.chart, self.namespace, values, self.helm_major,
                       upgrade=upgrade, starting=starting, parse=parse, known=self.known)

    def between(self, previous: dict[str, Any]) -> tuple[str, Rendered | None]:
        """The new chart with the release's previous user values (commands/causes.py): given on
        standard input (`--values -`), never written to a file; a server render with
        --reset-values, so that helm takes them alone. `helm template`'s text is not parsed
        here: only the documents that differ from the desired render's are, once it is done
        (`_between_documents`)."""
        once = structs.replace(self.options, values=ValueFlags(), reuse_values=False,
                               reset_then_reuse_values=False, reset_values=self.mode == "server",
                               deploy=structs.replace(self.options.deploy, dependency_update=False))
        args, stdin = values_on_stdin(previous)
        values = _Values(tuple(args), stdin)
        made = _render(self.helm, once, self.mode, self.chart, self.namespace, values,
                       self.helm_major, upgrade=True, parse=False, known=self.known)
        return made.text, made.documents

    def again(self, values: _Values, *, upgrade: bool) -> _Render:
        return _render_again(self.helm, self.options, self.mode, self.chart, self.namespace, values, self.helm_major,
                             upgrade=upgrade)


def _between_documents(between: causes.Between, first: _Render) -> tuple[Rendered | None, Rendered | None]:
    """The render of the new chart with the previous values, for the planner (core/planner.py
    `PlanRequest.between`, `between_unlike`): a server render's documents whole; of `helm
    template`'s text, only the documents the desired render lacks word for word, and the desired
    render's documents it lacks (read again to be named): for a values change of a few objects,
    a few documents, whatever the chart's size."""
    if between.attribution is not Attribution.RENDERED or between.render is not None:
        return between.render, None
    if "generateName" in between.text:
        # An object named by generateName is known by its place in its stream (core/planner.py
        # `_Identifier.index`), which a part of the stream does not keep: the render read whole.
        return split_stream(between.text, "helm template (with the previous values)"), None
    return _varying(first, _Render(between.text)), _varying(_Render(between.text), _Render(first.text))


def _older(pool: Workers, renderer: _Renderer, values: _Values, upgrade: bool, older: str,
           after: Call[_Render] | None = None) -> Call[_Render | None] | None:
    """The render for the `older` Kubernetes version (none for ""), beside the first or after
    `after`; None when helm fails on it (a chart requiring a newer one): nothing is compared.
    The same command as the first with `--kube-version` added, and nothing else: not the API
    versions the plan gives with the user's --kube-version, so that what differs is the version's."""
    def render() -> _Render | None:
        if after is not None:
            after.result()
        try:
            return renderer.again(structs.replace(values, args=(*values.args, "--kube-version", older)), upgrade=upgrade)
        except (HelmError, ManifestError):
            return None
    return pool.submit(render) if older else None


# A plan's calls, in steps; each says what runs side by side in the plan's worker threads (`pool`)
# and what it waits for:
#
# 1. `_start_reads`: helm's version, the release as stored, the chart made local, helm
#    template's default Kubernetes version, side by side. The release read waits for the version.
# 2. `_start_render`, once the version and the chart are known: the first render, beside the
#    release read, unless it needs what the read finds (the values of a revision to reuse). The
#    chart's Chart.yaml and templates are read meanwhile, then the second render and the one for
#    an older Kubernetes version (`_older`) beside the first (`_Ahead`). Renders that need the
#    release's values start in a worker thread once it is read (`_start_renders_once_read`).
# 3. `_start_release_reads`, once the release is read: its history (when helm may prune it) and
#    the live objects of its kinds, beside the renders.
# 4. `_desired_renders`: the renders started ahead or once the release was read, or, for an
#    install rendered ahead as an upgrade, all now, side by side. Beside them since the release
#    was read: the new chart with the previous values, and the charts' defaults (causes.py).
#
# Values a chart makes anew on every render (randAlphaNum, genCA, checksums of those) are found
# by rendering the desired state twice with the same inputs (core/regenerated.py), for a chart
# whose templates call such a function (sources/chart.py `scan`) alone, beside the first: one
# more helm process; only the documents it changed are parsed (`_varying`). A value stamped
# with the render's time (`now`) is found without it, by the window the renders ran in. A
# server render is a dry run: the second one only reads the cluster too. Templates that read the
# Kubernetes version, rendered offline for helm's default, are rendered for an older version too,
# beside the first, and compared the same way (core/version_render.py).

class _Reads(Struct, frozen=True):
    """Step 1's calls."""

    version: Call[str]
    state: Call[ReleaseState]
    chart: Call[str]  # the path of the chart to render
    kube_default: Call[str] | None  # offline without --kube-version only


def _start_reads(pool: Workers, helm: Helm, releases: Releases, options: UpgradeOptions, namespace: str, mode: str,
                 workdir: Workdir) -> _Reads:
    """Step 1: side by side, helm's version; the release as stored, once the version is known
    (a Helm 4 record carries the apply method); the chart made local (one `helm pull` for a
    reference); for an offline render without --kube-version, the version helm template
    assumes (targets.helm_default_version, remembered per helm)."""
    version_call = pool.submit(helm.version)
    known = options.release_state
    state_call = pool.submit(lambda: known if known is not None else
                             releases.release_state(options.release, namespace, major(version_call.result())))
    chart_call = pool.submit(charts.resolve, helm, options.chart, options.version, workdir,
                             options.repo, options.devel, options.source.pull_args())
    default_call = (pool.submit(targets.helm_default_version, helm)
                    if mode == "template" and not options.kube_version else None)
    return _Reads(version_call, state_call, chart_call, default_call)


class _Ahead(Struct, frozen=True):
    """Step 2's renders, started before the release is read (an upgrade, the user's own values)."""

    first: Call[_Render]
    again: Call[_Render] | None = None  # the second render, for templates that may make values anew
    older: Call[_Render | None] | None = None  # the render for an older Kubernetes version


def _start_render(pool: Workers, renderer: _Renderer) -> Call[_Render]:
    """Step 2: the first render, beside the release read. Returns once its helm process is
    starting: the caller then reads the chart's files and imports the planner while helm runs,
    and would otherwise hold back the thread that starts it."""
    starting = threading.Event()
    ahead = pool.submit(renderer.render, _given(renderer.options.values), upgrade=True,
                        starting=starting)
    ahead.add_done_callback(lambda _: starting.set())  # a render that failed before helm started
    starting.wait()
    return ahead


class _ReleaseReads(Struct, frozen=True):
    """Step 3: what is read once the release is known."""

    previous: Rendered | None  # the current revision, with its chart's crds/
    scope: live_state.Scope  # the kinds read live with it
    history: Call[list[dict[str, Any]]] | None
    live: Call[LiveSnapshot] | None


def _start_release_reads(pool: Workers, releases: Releases, options: UpgradeOptions, namespace: str,
                         state: ReleaseState, history_max: int, skipped: str, settings: Any,
                         known: Known) -> _ReleaseReads:
    """Step 3, beside the renders: the history, which helm prunes when it writes the new record
    (only a history at least as long as the limit can lose one, and the newest revision number
    bounds its length); the live objects of the previous release's kinds. With the previous
    chart's crds/, so a chart CRD that changed is reported (Helm leaves it)."""
    from deployah_plan.core.planner import live_scope  # imported by now (plan_upgrade)

    history_call = (pool.submit(releases.history, options.release, namespace, state.newest_revision)
                    if history_max > 0 and state.newest_revision >= history_max - 1 else None)
    previous = rendered(state.current, with_crds=True, known=known) if state.current is not None else None
    read_scope = live_scope([previous], namespace) if previous and not skipped else []
    live_call = pool.submit(live_state.read, settings, read_scope) if read_scope else None
    return _ReleaseReads(previous, read_scope, history_call, live_call)


class _Renders(Struct, frozen=True):
    """The renders made with the values `helm upgrade` would use (`_renders_with`), and the notes
    that choosing those values made."""

    first: _Render
    second: _Render | None
    notes: tuple[Warning, ...]
    older: _Render | None = None  # for an older Kubernetes version (`_older`)


def _renders_with(pool: Workers, renderer: _Renderer, state: ReleaseState, workdir: Workdir,
                  may_regenerate: bool, older: str) -> _Renders:
    """The first render with the values `helm upgrade` would use for `state`, and beside it the
    second when the templates may make values anew, the one for the `older` version when given."""
    options = renderer.options
    fresh = state.current is None
    notes: list[Warning] = []
    values = _values_for_template(renderer.releases, options, state, renderer.namespace, workdir, notes,
                                  renderer.helm_major)
    updates = options.deploy.dependency_update
    again_call = (pool.submit(renderer.render, values, upgrade=not fresh, parse=False)
                  if may_regenerate and not updates else None)
    older_call = _older(pool, renderer, values, not fresh, "" if updates else older)
    first = renderer.render(values, upgrade=not fresh)
    second = (again_call.result() if again_call is not None
              else renderer.again(values, upgrade=not fresh) if may_regenerate else None)
    if updates:
        older_call = _older(pool, renderer, values, not fresh, older)
    return _Renders(first, second, tuple(notes), older_call.result() if older_call is not None else None)


def _start_renders_once_read(pool: Workers, renderer: _Renderer, state_call: Call[ReleaseState], workdir: Workdir,
                             may_regenerate: bool, older: str) -> Call[_Renders]:
    """Step 2, for renders that need the release's values: started, in a worker thread, as soon
    as the release is read, not once this thread has imported the planner and read the previous
    release (a plan of a small chart then waited for those before helm rendered)."""
    return pool.submit(lambda: _renders_with(pool, renderer, state_call.result(), workdir, may_regenerate, older))


def _same_chart(releases: Releases, release: str, namespace: str, stored: Any, chart: str) -> bool:
    """Whether the chart at `chart` is the one `stored` (the release's revision) keeps, word for
    word (commands/causes.py `same_chart`): its stored chart, from the record already read (or
    one `helm get all` where helm reads the store), no render."""
    errors: tuple[type[Exception], ...] = (HelmError, ReleaseError, OSError, ValueError, EOFError, *charts.tar_errors())
    try:
        return causes.same_chart(releases.stored_chart(release, namespace, stored.revision), charts.chart_files(chart),
                                 stored.defaults())
    except errors:
        return False


def _desired_renders(pool: Workers, renderer: _Renderer, ahead: _Ahead | None, once_read: Call[_Renders] | None,
                     state: ReleaseState, workdir: Workdir, notes: list[Warning],
                     may_regenerate: bool, older: str) -> _Renders:
    """Step 4: the first render of the new release, the second when the templates may make
    values anew, the one for the `older` Kubernetes version when given. Those started ahead are
    used when they rendered what the plan needs: always on a server render, else when the
    release exists (they rendered an upgrade); those started once the release was read, always.
    Otherwise all render now, with the values `helm upgrade` would use, side by side."""
    options = renderer.options
    fresh = state.current is None
    if ahead is not None and (renderer.mode == "server" or not fresh):
        first = ahead.first.result()
        second = (ahead.again.result() if ahead.again is not None
                  else renderer.again(_given(options.values), upgrade=True) if may_regenerate else None)
        older_call = ahead.older or _older(pool, renderer, _given(options.values), True, older)
        return _Renders(first, second, (), older_call.result() if older_call is not None else None)
    renders = once_read.result() if once_read is not None else _renders_with(pool, renderer, state, workdir,
                                                                              may_regenerate, older)
    notes += renders.notes
    return renders


def plan_upgrade(options: UpgradeOptions, *, digest_chart: bool = False, calls: HelmCalls | None = None) -> Planned:
    """The plan and what it read. `digest_chart`: a record will be made (--out, verify), so the
    chart is digested while a pulled chart's folder still exists. `calls`: the command's helm
    processes, some perhaps started before the imports (sources/early.py)."""
    helm, target = connect(options.namespace, options.kube_context, options.kubeconfig, options.debug, calls)
    helm.timeout = options.helm_timeout
    namespace = target.namespace
    deploy = options.deploy
    options.values.check_files()
    upgrade_flags.check_dry_run(deploy.dry_run)
    labels = upgrade_flags.parse_labels(deploy.labels)
    if deploy.history_max is not None and deploy.history_max < 0:
        raise UsageError("--history-max must be 0 (no limit) or more", "give a number of revisions to keep")
    history_max = upgrade_flags.HISTORY_MAX_DEFAULT if deploy.history_max is None else deploy.history_max
    mode = _render_mode(options)
    if mode == "server" and (options.kube_version or options.api_versions):
        raise UsageError("--kube-version and --api-versions only apply when rendering offline",
                         "add --render template, or drop them to use the cluster's real capabilities")
    settings = resolve_settings(namespace=namespace, context=options.kube_context, kubeconfig=options.kubeconfig)
    skipped = live_state.skipped_reason(options.no_drift, options.require_cluster, settings)
    if options.kube_version:
        targets.check_version(options.kube_version)

    with Workdir("helm-plan-") as workdir, workers(7) as pool:
        # 1. The version, the release, the chart, helm template's default version: side by side.
        releases = options.releases or Releases(helm, settings)  # Helm's storage read here, or by helm
        reads = _start_reads(pool, helm, releases, options, namespace, mode, workdir)
        helm_version = reads.version.result()
        helm_major = major(helm_version)
        notes: list[Warning] = upgrade_flags.check_for_helm(deploy, options.server_side, options.force_conflicts,
                                                            helm_major, helm_version)
        renderer = _Renderer(helm, options, mode, reads.chart.result(), namespace, helm_major, releases)
        # The window the renders run in opens when the first one was started: before the imports,
        # when it was started then (sources/early.py).
        started = helm.calls.started_at or time.time()
        # 2. The first render beside the release read, unless it needs the release's values.
        render_ahead = mode == "server" or not _values_from_release(options)
        first_call = _start_render(pool, renderer) if render_ahead else None
        # The chart's Chart.yaml and templates are read while helm renders them (not before:
        # that would hold the render back), then the second render is started beside the first,
        # and the planner and the record are imported while helm reads the release and renders
        # the chart in processes of their own.
        chart, templates = charts.read_local(renderer.chart, helm.calls.templates(renderer.chart),
                                             helm.calls.chart_yaml(renderer.chart))
        again_call = (pool.submit(renderer.render, _given(options.values), upgrade=True, parse=False)
                      if first_call is not None and templates.may_regenerate and not deploy.dependency_update else None)
        # Templates that read the Kubernetes version: rendered for an older one too, beside the first.
        older = (helm_versions.older_version(reads.kube_default.result())
                 if reads.kube_default is not None and templates.reads_kube_version else "")
        after = first_call if deploy.dependency_update else None  # the first updates the chart's dependencies
        older_call = _older(pool, renderer, _given(options.values), True, older, after) if first_call else None
        ahead = _Ahead(first_call, again_call, older_call) if first_call is not None else None
        once_read = (_start_renders_once_read(pool, renderer, reads.state, workdir, templates.may_regenerate, older)
                     if first_call is None else None)
        between_call = causes.start(pool, reads.state, causes.Request(
            values_given=options.values.any(), reset_values=options.reset_values, stored_chart=options.stored_chart,
            files=tuple(options.values.files), sets=(*options.values.set, *options.values.set_string, *options.values.set_json,
                                                     *options.values.set_file, *options.values.set_literal),
            chart=(chart.name, chart.version)),
            causes.Reads(lambda stored: releases.values(options.release, namespace, stored.revision),
                         lambda values: renderer.between(values),
                         lambda stored: stored.defaults(),
                         lambda: charts.default_values(renderer.chart),
                         lambda stored: _same_chart(releases, options.release, namespace, stored, renderer.chart)),
            (after or once_read) if deploy.dependency_update else None)
        from deployah_plan.core import causes as core_causes, version_render
        from deployah_plan.core.planner import PlanRequest, live_scope, make_plan
        from deployah_plan.planfile.inputs import ChartRead, Inputs, Planned, chart_tree_sha256

        # 3. Once the release is read: its history and the live objects, beside the renders.
        state = reads.state.result()
        release_reads = _start_release_reads(pool, releases, options, namespace, state, history_max, skipped, settings,
                                             renderer.known)
        previous, read_scope = release_reads.previous, release_reads.scope
        chart_read = ChartRead(ref=hide_userinfo(options.chart), tree_sha256=chart_tree_sha256(chart.path)) if digest_chart else None
        fresh = state.current is None
        # 4. The renders: those started ahead or once the release was read, or both now.
        renders = _desired_renders(pool, renderer, ahead, once_read, state, workdir, notes,
                                   templates.may_regenerate, older)
        first, second = renders.first, renders.second
        assert first.documents is not None  # the first render is always parsed
        desired = first.documents
        desired_again = _varying(first, second) if second is not None else None
        between = between_call.result()  # the new chart with the previous values (commands/causes.py)
        between_documents, between_unlike = _between_documents(between, first)
        window = (started, time.time())
        # Of the versions' renders, only the documents whose text the other lacks: for most charts, none.
        moved = (_varying(renders.older, _Render(first.text)), _varying(first, renders.older)) if renders.older is not None else None
        if mode == "template" and templates.calls_lookup:
            notes.append(warn(LookupOffline(chart=chart.name)))
        if options.subcharts:
            notes.append(warn(SubchartsCarried(chart=chart.name, subcharts=tuple(options.subcharts))))
        live = release_reads.live.result() if release_reads.live else None
        history = release_reads.history.result() if release_reads.history else []
        kube_default = reads.kube_default.result() if reads.kube_default else ""  # done before the render

    # --create-namespace on an install: the Namespace helm creates is planned as a create, and
    # read live with the release's kinds (as one of the objects this plan creates).
    creates_namespace = fresh and deploy.create_namespace
    rendered_desired = desired
    if creates_namespace:
        desired = upgrade_flags.with_namespace(desired, namespace)
    if not skipped:
        # Then what only the new chart has (one more discovery and LIST per new kind).
        more = [item for item in live_scope([desired], namespace) if item not in read_scope]
        if live is None:
            live = live_state.read(settings, more)
        elif live.reachable and more:
            live = live_state.merge(live, live_state.read(settings, more))
    live = live_state.required(live, options.require_cluster)
    current = state.current
    inputs = Inputs(chart=chart_read, previous=current, newest_revision=state.newest_revision, desired=rendered_desired,
                    live=live, release=options.release, live_streams=(previous, desired))
    applied_with = upgrade_flags.applied(options.server_side, helm_major, state.current is None,
                                         state.newest_apply_method, state.newest_revision)
    apply_method = applied_with.method if helm_major >= 4 else None
    # A cluster the live read could not reach is not asked again (another connect timeout).
    ask = mode == "server" or (not skipped and (live is None or live.reachable))
    judge = _target(options, settings, ask, [previous, rendered_desired], namespace, helm_major,
                    apply_method, fresh, kube_default)
    spent = (judge.requests if judge is not None else 0) + releases.requests  # every request is counted
    live = structs.replace(live, requests=live.requests + spent) if spent and live is not None else live
    if mode == "template" and templates.reads_kube_version and not options.kube_version:
        read = judge is not None and judge.source in (VersionSource.CLUSTER_OPENAPI, VersionSource.CLUSTER_DISCOVERY)
        notes.append(upgrade_flags.kube_version_note(
            chart.name, kube_default, judge.kube_version if read and judge is not None else "", older if moved else "",
            version_render.differing(*moved, desired_again, window, namespace) if moved else ()))
    exists = judge.namespace_exists if judge is not None else None
    desired, more_notes = upgrade_flags.namespace_notes(deploy, fresh, namespace, exists, rendered_desired)
    notes += more_notes
    notes += upgrade_flags.behaviour_notes(deploy, helm_major, fresh, current.revision if current else 0, desired,
                                           labels, upgrade_flags.pruned_revisions(history, history_max), history_max,
                                           server_side=apply_method is ApplyMethod.SSA)
    header = Header(
        release=options.release, namespace=namespace, kube_context=target.context,
        revision=state.newest_revision + 1, fresh_install=fresh,
        chart_name=chart.name, chart_version=chart.version,
        previous_revision=current.revision if current else 0,
        previous_chart=f"{current.chart_name}-{current.chart_version}" if current else "",
        helm_version=helm_version, rendered_by=mode, applied_with=applied_with,
    )
    if current is not None and current.status != "deployed":
        notes.append(warn(PreviousNotDeployed(revision=current.revision, status=current.status)))
    if state.replaces_uninstalled:
        notes.append(warn(Reinstall(release=options.release)))
    return Planned(make_plan(PlanRequest(
        header, previous, desired, helm_major, options.skip_crds, tuple(notes),
        hooks_disabled=deploy.no_hooks,
        live=live, live_source="cluster", live_reason=skipped, take_ownership=options.take_ownership,
        apply_method=apply_method, force_conflicts=options.force_conflicts, target=judge,
        desired_again=desired_again, render_window=window,
        line_context=options.line_context, previous_dependency_crds=False,
        causes=core_causes.Given(between.attribution, between_documents, between_unlike, between.defaults),
    )), inputs)


def _target(options: UpgradeOptions, settings: Any, ask_cluster: bool, streams: list[Rendered | None],
            namespace: str, helm_major: int, apply_method: ApplyMethod | None, fresh: bool, kube_default: str) -> targets.Target | None:
    """What the objects are judged against: the cluster when it is read (or rendered against),
    else --kube-version, else the version helm template assumed. Strict field validation is
    Helm 4's server-side apply (an install's default, an upgrade's when the release used it)."""
    ssa = helm_major >= 4 and (apply_method is ApplyMethod.SSA or (fresh and options.server_side != "false"))
    checks = dict(strict_fields=ssa and not options.disable_openapi_validation,
                  validate_fields=not options.disable_openapi_validation, client_side_hooks=not ssa,
                  create_namespace=fresh and options.deploy.create_namespace)
    if ask_cluster:
        found = targets.cluster_target(settings, streams, namespace, **checks)
        if found is not None:
            return found
    if options.kube_version:
        return targets.offline_target(options.kube_version.lstrip("v"), VersionSource.FLAG, **checks)
    if kube_default:  # helm's offline capabilities: a chart may pick another apiVersion against a real cluster
        return targets.offline_target(kube_default, VersionSource.TEMPLATE_DEFAULT, **checks,
                                      render_defaults=True)
    return None
