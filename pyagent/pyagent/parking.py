"""The assignments an agent holds until their model version comes (the Java ``ParkedAssignments``),
per task partition, and so how far each partition's consumer offset may be committed.

Under pipelined allocation the broker sends round ``k+1``'s assignments (model version ``k``) as
round ``k`` opens. The agent parks such an assignment (and any other whose model version has not
come), and goes on with the records after it, so offsets are no longer
marked done in order. The offset committed for a partition never passes its oldest parked record:
a restart or a rebalance must deliver that record again. It is the oldest parked offset while one is parked, else the
highest offset done plus one (records after a parked one that already ran are then delivered again
too: skipped if their round closed, or run again as duplicates the trainer drops, as after any
rebalance).

Nothing here times out: each parked assignment knows when it was parked, and the agent decides
when one has waited too long (``WorkerAgent.overdue``). One a version or two ahead of its job's
newest model (``agent.PARK_AHEAD``) stays while its job's model moves; once it has waited
``--stalled-job-wait`` (10 min) and the job's model has been quiet as long, it is dead-lettered
(its job looks stopped), so it no longer holds back its partition's committed offset: the broker's
plan for that round is then lost, and a round that does open later gets the tasks again through the
trainer's overdue/backup-task path.

The task thread parks, runs and forgets (the consumer's rebalance callbacks run on it too); the
lock keeps a look from another thread, such as a test's, consistent.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Tuple

# (topic, partition)
Partition = Tuple[str, int]


@dataclass(frozen=True)
class Parked:
    """A parked assignment: the record it came in (its partition and offset), what it says, and
    when it was parked (``time.monotonic()``)."""

    message: object
    assignment: dict
    parked_at: float

    @property
    def partition(self) -> Partition:
        return self.message.topic(), self.message.partition()

    @property
    def offset(self) -> int:
        return self.message.offset()


@dataclass
class _Progress:
    """One partition's parked records by offset, and the highest offset marked done."""

    parked: Dict[int, Parked] = field(default_factory=dict)
    highest_done: int = -1


class ParkedAssignments:
    def __init__(self):
        self._partitions: Dict[Partition, _Progress] = {}
        self._lock = threading.Lock()

    def park(self, parked: Parked) -> bool:
        """Holds ``parked`` until its model version comes; its partition is not committed past it.
        Whether it is new (not the same record parked again, as after a retry gave it back: that
        one keeps its first time)."""
        with self._lock:
            progress = self._partitions.setdefault(parked.partition, _Progress())
            new = parked.offset not in progress.parked
            progress.parked.setdefault(parked.offset, parked)
            return new

    def __len__(self) -> int:
        with self._lock:
            return sum(len(p.parked) for p in self._partitions.values())

    def all(self) -> List[Parked]:
        """Every parked assignment, by partition, the oldest of each first."""
        with self._lock:
            every = [p for progress in self._partitions.values() for p in progress.parked.values()]
        return sorted(every, key=lambda p: (p.partition, p.offset))

    def commit_offset(self, partition: Partition, offset: int) -> int:
        """The offset to commit when the record at ``offset`` of ``partition`` is marked done: past
        every record done (that one included), but not past a record still parked (other than that
        one)."""
        with self._lock:
            progress = self._partitions.get(partition)
            if progress is None:
                return offset + 1
            past = max(progress.highest_done, offset) + 1
            others = [o for o in progress.parked if o != offset]
            return min(min(others), past) if others else past

    def done(self, partition: Partition, offset: int) -> None:
        """The record at ``offset`` of ``partition`` is marked done (committed): no longer parked."""
        with self._lock:
            progress = self._partitions.setdefault(partition, _Progress())
            progress.parked.pop(offset, None)
            progress.highest_done = max(progress.highest_done, offset)

    def forget(self, gone: Iterable[Partition]) -> int:
        """Forgets ``gone`` partitions (revoked or lost): their next owner reads them from the
        committed offset, which is not past their parked records. How many were parked there."""
        dropped = 0
        with self._lock:
            for partition in gone:
                progress = self._partitions.pop(partition, None)
                dropped += 0 if progress is None else len(progress.parked)
        return dropped

    def clear(self) -> int:
        """Forgets everything (the agent stops: what is parked is not run, nor committed)."""
        with self._lock:
            dropped = sum(len(p.parked) for p in self._partitions.values())
            self._partitions.clear()
            return dropped
