"""The kube context and namespace Helm would use, read from the kubeconfig as helm reads it.

Precedence (helm's): --kube-context / HELM_KUBECONTEXT, else the kubeconfig's current-context;
namespace: -n / HELM_NAMESPACE, else the context's namespace, else "default".
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


@dataclass(frozen=True)
class KubeTarget:
    context: str
    namespace: str


def _kubeconfig_files(explicit: str | None) -> list[Path]:
    if explicit:
        return [Path(explicit)]
    env = os.environ.get("KUBECONFIG")
    if env:
        return [Path(p) for p in env.split(os.pathsep) if p]
    return [Path.home() / ".kube" / "config"]


def _load(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def resolve_target(namespace: str | None, context: str | None, kubeconfig: str | None) -> KubeTarget:
    configs = [_load(p) for p in _kubeconfig_files(kubeconfig)]
    current = context or os.environ.get("HELM_KUBECONTEXT") or next(
        (c["current-context"] for c in configs if c.get("current-context")), ""
    )
    chosen = namespace or os.environ.get("HELM_NAMESPACE") or ""
    if not chosen:
        for config in configs:
            for entry in config.get("contexts") or []:
                if isinstance(entry, dict) and entry.get("name") == current:
                    chosen = str((entry.get("context") or {}).get("namespace") or "")
                    break
            if chosen:
                break
    return KubeTarget(str(current), chosen or "default")
