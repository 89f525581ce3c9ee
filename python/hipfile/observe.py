# SPDX-License-Identifier: MIT
"""What the library did and how it is set: ``stats()``, ``runtime()``, ``get_parameter`` /
``set_parameter``, ``parameters()``, and the package's threads (``set_num_threads``)."""

from __future__ import annotations

from hipfile import _hipfile as _c  # pylint: disable=E0401,E0611
from hipfile.error import check_err

__all__ = [
    "stats",
    "runtime",
    "get_parameter",
    "set_parameter",
    "parameters",
    "set_num_threads",
    "get_num_threads",
]

# hipFile's parameter enumerations, in C order: the names without the hipFileParam prefix.
_SIZE_T = (
    "ProfileStats",
    "ExecutionMaxIOQueueDepth",
    "ExecutionMaxIOThreads",
    "ExecutionMinIOThresholdSizeKB",
    "ExecutionMaxRequestParallelism",
    "PropertiesMaxDirectIOSizeKB",
    "PropertiesMaxDeviceCacheSizeKB",
    "PropertiesPerBufferCacheSizeKB",
    "PropertiesMaxDevicePinnedMemSizeKB",
    "PropertiesIOBatchsize",
    "PollthresholdSizeKB",
    "PropertiesBatchIOTimeoutMs",
)
_BOOL = (
    "PropertiesUsePollMode",
    "PropertiesAllowCompatMode",
    "ForceCompatMode",
    "FsMiscApiCheckAggressive",
    "ExecutionParallelIO",
    "ProfileNvtx",
    "PropertiesAllowSystemMemory",
    "UsePcip2pdma",
    "PreferIOUring",
    "ForceOdirectMode",
    "SkipTopologyDetection",
    "StreamMemopsBypass",
)
_STRING = ("LoggingLevel", "EnvLogfilePath", "LogDir")


def _lookup(name: str) -> tuple[str, int]:
    key = name[len("hipFileParam") :] if name.startswith("hipFileParam") else name
    for kind, names in (("size_t", _SIZE_T), ("bool", _BOOL), ("string", _STRING)):
        if key in names:
            return kind, names.index(key)
    raise KeyError(
        f"hipfile: no parameter {name!r}; known: {', '.join(_SIZE_T + _BOOL + _STRING)}"
    )


def get_parameter(name: str) -> int | bool | str:
    """A parameter's value (``hipFileGetParameter*``): the value in use while the driver is open,
    the next open's while closed. ``name``: ``"ExecutionMaxIOThreads"`` or
    ``"hipFileParamExecutionMaxIOThreads"``."""
    kind, index = _lookup(name)
    getter = {"size_t": _c._get_size_t, "bool": _c._get_bool, "string": _c._get_string}[kind]
    value, err = getter(index)
    check_err(err, f"hipfile.get_parameter({name!r})")
    return value


def set_parameter(name: str, value: int | bool | str) -> None:
    """Sets a parameter for the next driver open (``hipFileSetParameter*``); raises
    ``HipFileError`` (``hipFileDriverAlreadyOpen``) while the driver is open."""
    kind, index = _lookup(name)
    if kind == "size_t":
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"hipfile.set_parameter({name!r}): expected an int")
        err = _c._set_size_t(index, value)
    elif kind == "bool":
        if not isinstance(value, bool):
            raise TypeError(f"hipfile.set_parameter({name!r}): expected a bool")
        err = _c._set_bool(index, value)
    else:
        if not isinstance(value, str):
            raise TypeError(f"hipfile.set_parameter({name!r}): expected a str")
        err = _c._set_string(index, value)
    check_err(err, f"hipfile.set_parameter({name!r}, {value!r})")


def parameters() -> dict[str, int | bool | str]:
    """Every parameter's value, by name."""
    return {name: get_parameter(name) for name in _SIZE_T + _BOOL + _STRING}


def stats() -> dict:
    """The process's statistics (``HIPFILE_STATS_LEVEL`` 1 or more): hipFileGetStatsL1's counters
    (``read_bytes``, ``read_ops`` as ``{"ok", "err"}``, latencies, batch counters) and, under
    ``"paths"``, the bytes and operations of each way bytes moved (``page_cache``, ``direct``,
    ``buffered``, ``io_uring``, ``host``) with ``"buffered_by_reason"``
    (hipFileExtGetPathStats, docs/stats.md); under ``"async_ways"``, the stream-ordered
    operations by the way each went (``run_at_once``, ``read_at_submission``,
    ``copied_at_submission``, ``staged``, ``worker``, ``host_function``, each
    ``{"read_ops", "write_ops"}``) and what the staged ones did (``large_chunks``,
    ``chains_alone``, ``staging_waits``, ``copied_ahead``, ``used_ahead``,
    ``ahead_on_companion``, ``one_launch``, ``ahead_in_parts``, and why reads that could have
    been copied ahead were not: ``ahead_not_pinned``, ``ahead_no_room``; and
    ``ahead_windows_chosen``, reads not split in parts because their device's copy kernel was
    measured reading host memory about as fast as DMA)
    (hipFileExtGetAsyncWayStats); under ``"copy_waits"``, the waits for the library's own
    copies of staged transfers: ``waits``, ``slept`` (those whose copies were not done within
    ``HIPFILE_COPY_SPIN_US`` and slept on an event), ``poll_ns`` and ``sleep_ns`` (the time
    polling and asleep, summed) (hipFileExtGetCopyWaitStats)."""
    l1, err = _c._stats_l1()
    check_err(err, "hipfile.stats")
    paths, err = _c._path_stats()
    check_err(err, "hipfile.stats")
    l1.update(paths)
    ways, err = _c._async_way_stats()
    check_err(err, "hipfile.stats")
    l1["async_ways"] = ways
    waits, err = _c._copy_wait_stats()
    check_err(err, "hipfile.stats")
    l1["copy_waits"] = waits
    return l1


def runtime() -> tuple[str, str]:
    """The GPU runtime in use (``"cuda"``, ``"cpu"`` or ``"cpu-staged"``) and why it was
    chosen."""
    return _c._runtime_name(), _c._runtime_reason()


def set_num_threads(n: int) -> None:
    """How many ``pread``/``pwrite`` calls may run at once (default 8). Each call is split and
    run in parallel by the library itself."""
    _c._set_max_threads(n)


def get_num_threads() -> int:
    """The limit ``set_num_threads`` sets."""
    return _c._max_threads()
