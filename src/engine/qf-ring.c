/* qf-ring.c — single-producer/single-consumer sample ring; see qf-ring.h.
 *
 * head is written only by the producer, tail only by the consumer; each reads the other's index
 * with acquire ordering and publishes its own with release ordering, so a popped sample is always
 * fully written. The indices run freely and are masked, so capacity is a power of two. */
#include "config.h"

#include "qf-ring.h"

struct QfRing
{
  guint     mask;
  QfSample *slots;
  /* Producer and consumer indices on separate cache lines so they do not bounce. */
  _Alignas (64) atomic_uint_fast64_t head;
  _Alignas (64) atomic_uint_fast64_t tail;
  _Alignas (64) atomic_uint_fast64_t dropped;
};

QfRing *
qf_ring_new (guint capacity)
{
  QfRing *ring;
  guint size = 1;

  g_return_val_if_fail (capacity > 0 && capacity <= (1u << 30), NULL);

  while (size < capacity)
    size <<= 1;

  ring = g_aligned_alloc0 (1, sizeof (QfRing), 64);
  ring->mask = size - 1;
  ring->slots = g_new0 (QfSample, size);
  atomic_init (&ring->head, 0);
  atomic_init (&ring->tail, 0);
  atomic_init (&ring->dropped, 0);
  return ring;
}

void
qf_ring_free (QfRing *ring)
{
  if (ring == NULL)
    return;
  g_free (ring->slots);
  g_aligned_free (ring);
}

guint
qf_ring_capacity (const QfRing *ring)
{
  g_return_val_if_fail (ring != NULL, 0);
  return ring->mask + 1;
}

/* Producer thread only. Returns FALSE (and counts a drop) when the ring is full. */
gboolean
qf_ring_push (QfRing         *ring,
              const QfSample *sample)
{
  guint64 head = atomic_load_explicit (&ring->head, memory_order_relaxed);
  guint64 tail = atomic_load_explicit (&ring->tail, memory_order_acquire);

  if (head - tail > ring->mask)
    {
      atomic_fetch_add_explicit (&ring->dropped, 1, memory_order_relaxed);
      return FALSE;
    }
  ring->slots[head & ring->mask] = *sample;
  atomic_store_explicit (&ring->head, head + 1, memory_order_release);
  return TRUE;
}

/* Consumer thread only. Copies up to max_samples oldest samples into out; returns how many. */
guint
qf_ring_pop (QfRing   *ring,
             QfSample *out,
             guint     max_samples)
{
  guint64 tail = atomic_load_explicit (&ring->tail, memory_order_relaxed);
  guint64 head = atomic_load_explicit (&ring->head, memory_order_acquire);
  guint64 n = head - tail;

  if (n > max_samples)
    n = max_samples;
  for (guint64 i = 0; i < n; i++)
    out[i] = ring->slots[(tail + i) & ring->mask];
  atomic_store_explicit (&ring->tail, tail + n, memory_order_release);
  return (guint) n;
}

/* Any thread. */
guint64
qf_ring_dropped (const QfRing *ring)
{
  g_return_val_if_fail (ring != NULL, 0);
  return atomic_load_explicit (&((QfRing *) ring)->dropped, memory_order_relaxed);
}
