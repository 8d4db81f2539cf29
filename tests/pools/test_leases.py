"""Leases on pooled resources: acquisition, heartbeats, expiry, release, reclaim, concurrency."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import IntegrityError, close_old_connections, connections, transaction
from django.utils import timezone

from tests.pools.conftest import make_run
from venus_rpa.pools import services
from venus_rpa.pools.models import Lease, PoolResource, ReleaseReason, ResourceStatus
from venus_rpa.pools.tasks import leases_reclaim_task

pytestmark = pytest.mark.django_db


def _devices(count: int, **kwargs) -> list[PoolResource]:
    return [services.pool_resource_register(kind="device", key=f"emulator-{5554 + 2 * i}", **kwargs)
            for i in range(count)]


def _acquire(**overrides) -> Lease | None:
    kwargs = {"kind": "device", "holder": "agent@host-a", "run_id": None, "ttl_s": 30.0, **overrides}
    return services.lease_acquire(**kwargs)


def _expire(lease: Lease) -> None:
    Lease.objects.filter(pk=lease.pk).update(expires_at=timezone.now() - timedelta(seconds=1))


def test_it_leases_each_free_resource_once_then_returns_none(run):
    resources = _devices(2)
    first, second = _acquire(run_id=run.pk), _acquire(run_id=run.pk)
    assert {first.resource_id, second.resource_id} == {r.pk for r in resources}
    assert first.holder == "agent@host-a" and first.run_id == run.pk
    assert first.expires_at - first.acquired_at == timedelta(seconds=30)
    assert _acquire() is None


def test_it_skips_offline_disabled_and_mismatched_resources(workspace):
    from tests.factories import WorkspaceFactory

    offline, disabled, pixel = _devices(3, tags={"model": "pixel"})
    PoolResource.objects.filter(pk=offline.pk).update(status=ResourceStatus.OFFLINE)
    PoolResource.objects.filter(pk=disabled.pk).update(status=ResourceStatus.DISABLED)
    services.pool_resource_register(kind="display", key=":99")
    services.pool_resource_register(kind="device", key="private", workspace=WorkspaceFactory(name="Globex"))
    assert _acquire(tags={"model": "galaxy"}) is None
    assert _acquire(tags={"model": "pixel"}).resource_id == pixel.pk
    assert _acquire(workspace=workspace) is None  # the other workspace's device is never offered


def test_it_prefers_the_workspaces_own_resource_over_a_shared_one(workspace):
    services.pool_resource_register(kind="browser_profile", key="shared")
    own = services.pool_resource_register(kind="browser_profile", key="acme", workspace=workspace)
    assert _acquire(kind="browser_profile", workspace=workspace).resource_id == own.pk
    assert _acquire(kind="browser_profile").resource.key == "shared"  # without a workspace: shared only


def test_it_refuses_unknown_kinds_bad_ttls_and_bad_tag_names():
    with pytest.raises(services.LeaseError, match="Unknown resource kind"):
        _acquire(kind="printer")
    with pytest.raises(services.LeaseError, match="positive time"):
        _acquire(ttl_s=0)
    _devices(1)
    with pytest.raises(services.LeaseError, match="Tag names"):
        _acquire(tags={"model__icontains": "x"})


def test_an_expired_lease_frees_its_resource_for_the_next_holder():
    _devices(1)
    lost = _acquire(holder="agent@dead")
    _expire(lost)
    taken = _acquire(holder="agent@alive")
    assert taken is not None and taken.resource_id == lost.resource_id
    lost.refresh_from_db()
    assert lost.released_at is not None and lost.release_reason == ReleaseReason.EXPIRED
    assert services.lease_heartbeat(lease_id=lost.pk, ttl_s=30) is False


def test_a_heartbeat_extends_the_lease_and_keeps_others_out():
    _devices(1)
    lease = _acquire(ttl_s=5)
    Lease.objects.filter(pk=lease.pk).update(expires_at=timezone.now() + timedelta(seconds=1))
    assert services.lease_heartbeat(lease_id=lease.pk, ttl_s=120) is True
    lease.refresh_from_db()
    assert lease.expires_at > timezone.now() + timedelta(seconds=100)
    assert lease.heartbeat_at > lease.acquired_at
    assert services.leases_reclaim_expired() == 0
    assert _acquire() is None


def test_a_heartbeat_after_expiry_is_refused():
    _devices(1)
    lease = _acquire()
    _expire(lease)
    assert services.lease_heartbeat(lease_id=lease.pk, ttl_s=30) is False


def test_the_sweep_reclaims_what_a_dead_holder_kept(workspace):
    _devices(2)
    dead = _acquire(holder="agent@killed")
    finished = make_run(workspace, slug="finished", status="succeeded")
    forgotten = _acquire(holder="agent@host-b", run_id=finished.pk)
    _expire(dead)
    assert leases_reclaim_task() == 2
    dead.refresh_from_db(), forgotten.refresh_from_db()
    assert (dead.release_reason, forgotten.release_reason) == (ReleaseReason.EXPIRED, ReleaseReason.RUN_ENDED)
    assert _acquire() is not None and _acquire() is not None
    assert leases_reclaim_task() == 0


def test_release_is_idempotent_and_frees_the_resource():
    _devices(1)
    lease = _acquire()
    assert services.lease_release(lease_id=lease.pk) is True
    assert services.lease_release(lease_id=lease.pk) is False
    lease.refresh_from_db()
    assert lease.release_reason == ReleaseReason.RELEASED
    assert services.lease_heartbeat(lease_id=lease.pk, ttl_s=30) is False
    assert _acquire().resource_id == lease.resource_id


def test_the_database_refuses_a_second_unreleased_lease_on_one_resource():
    _devices(1)
    lease = _acquire()
    now = timezone.now()
    with pytest.raises(IntegrityError), transaction.atomic():
        Lease.objects.create(resource=lease.resource, holder="sneaky", acquired_at=now, heartbeat_at=now,
                             expires_at=now + timedelta(seconds=30))


def test_the_reclaim_runs_on_beat_beside_the_runs_sweep(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["pools-leases-reclaim"]
    assert entry["task"] == leases_reclaim_task.name
    assert entry["schedule"] == settings.VENUS_SWEEP_SECONDS


def _race(threads: int, body) -> list[BaseException]:
    """Run `body(i)` in `threads` threads, each on its own database connection, started together."""
    barrier, errors = threading.Barrier(threads), []

    def target(i: int) -> None:
        close_old_connections()
        try:
            barrier.wait(timeout=30)
            body(i)
        except Exception as exc:  # noqa: BLE001 (reported to the test below)
            errors.append(exc)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=target, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    return errors


@pytest.mark.django_db(transaction=True)
def test_racing_holders_never_share_a_resource():
    assert connections["default"].vendor == "postgresql", "this race needs the PostgreSQL of scripts/test.sh"
    _devices(4)
    won: list[Lease] = []
    errors = _race(16, lambda i: won.append(_acquire(holder=f"worker-{i}")))
    assert errors == []
    leases = [lease for lease in won if lease is not None]
    assert len(won) == 16 and len(leases) == 4
    assert len({lease.resource_id for lease in leases}) == 4
    assert Lease.objects.filter(released_at__isnull=True).count() == 4


@pytest.mark.django_db(transaction=True)
def test_churning_holders_never_overlap_on_a_resource():
    """12 holders acquire, hold briefly and release 3 resources, 15 rounds each: at no moment do
    two of them believe they hold the same resource."""
    assert connections["default"].vendor == "postgresql"
    _devices(3)
    holding: dict[int, str] = {}
    guard, acquired = threading.Lock(), []

    def body(i: int) -> None:
        for _ in range(15):
            lease = _acquire(holder=f"worker-{i}", ttl_s=60)
            if lease is None:
                continue
            with guard:
                assert lease.resource_id not in holding, f"{holding[lease.resource_id]} holds it too"
                holding[lease.resource_id] = lease.holder
                acquired.append(lease.pk)
            time.sleep(0.005)  # hold it a moment: a second holder would show up now
            with guard:
                del holding[lease.resource_id]
            assert services.lease_release(lease_id=lease.pk)

    assert _race(12, body) == []
    assert len(acquired) >= 3
    assert Lease.objects.filter(released_at__isnull=True).count() == 0
