// Scratch locations: temp dirs and build or tool output, never part of the work product.
const SCRATCH =
  /^(?:\/tmp\/|\/var\/tmp\/|\/dev\/)|(?:^|\/)(?:__pycache__|_build|\.pytest_cache|\.mypy_cache|\.ruff_cache|\.tox|\.nox|node_modules|build|dist|target|out|\.next|\.gradle|coverage|htmlcov|\.cache|\.eggs|[^/]+\.egg-info)(?:\/|$)|\.(?:pyc|pyo|o|obj|class|so|dylib|dll|log|orig|rej|patch|diff)$/;

/** A path that is never part of a work product: `/tmp`, build output, caches. */
export function isScratchPath(path: string): boolean {
  return SCRATCH.test(path);
}
