"""klondike_env.kernel_cache: cached kernels are dropped when any kernel module changes."""

from klondike_env.kernel_cache import STAMP_NAME, drop_stale_kernel_caches


def make_package(root):
    (root / "__pycache__").mkdir(parents=True)
    (root / "sub" / "__pycache__").mkdir(parents=True)
    (root / "core.py").write_text("from numba import njit\n\n@njit(cache=True)\ndef f():\n    return 1\n")
    (root / "sub" / "step.py").write_text("import numba\n")
    (root / "cards.py").write_text("# no kernels here; numba is only named\n")
    return root


def cache_files(root):
    for name in ("core.f-3.py311.nbi", "core.f-3.py311.1.nbc"):
        (root / "__pycache__" / name).write_bytes(b"cached")
    (root / "sub" / "__pycache__" / "step.g-1.py311.nbi").write_bytes(b"cached")
    return sorted(root.rglob("*.nb[ic]"))


def test_caches_go_when_a_kernel_module_changes_and_stay_otherwise(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    package = make_package(tmp_path / "pkg")
    cache_files(package)
    assert drop_stale_kernel_caches(package)  # no record of the sources yet
    assert not list(package.rglob("*.nb[ic]")) and (package / "__pycache__" / STAMP_NAME).is_file()
    kept = cache_files(package)
    assert not drop_stale_kernel_caches(package)
    (package / "cards.py").write_text("# edited, still no kernels\n")
    assert not drop_stale_kernel_caches(package)
    assert sorted(package.rglob("*.nb[ic]")) == kept
    # a kernel another module calls changes: every module's cached kernels go, not only its own
    (package / "sub" / "step.py").write_text("import numba\n# changed\n")
    assert drop_stale_kernel_caches(package)
    assert not list(package.rglob("*.nb[ic]"))


def test_a_cache_kept_elsewhere_is_left_alone(tmp_path, monkeypatch):
    package = make_package(tmp_path / "pkg")
    kept = cache_files(package)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert not drop_stale_kernel_caches(package)
    assert sorted(package.rglob("*.nb[ic]")) == kept


def test_a_module_beside_kernels_in_a_subpackage_counts(tmp_path, monkeypatch):
    # the solver's kernels read constants from modules of their subpackage that import no numba
    # (numba compiles those values in): a change there must drop the caches too
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    package = make_package(tmp_path / "pkg")
    (package / "sub" / "constants.py").write_text("DEPTH = 10\n")
    drop_stale_kernel_caches(package)
    cache_files(package)
    (package / "sub" / "constants.py").write_text("DEPTH = 12\n")
    assert drop_stale_kernel_caches(package)
    assert not list(package.rglob("*.nb[ic]"))
