/* qf-ring.h — single-producer/single-consumer sample ring (src/engine).
 *
 * A measuring thread pushes samples; the UI (or the core runner) drains them. Lock-free with C11
 * atomics. A full ring drops the sample and counts the drop: the producer never blocks and a
 * result never depends on the consumer keeping up. Exactly one thread may push and exactly one
 * thread may pop at a time.
 */
#pragma once

#include <glib.h>
#include <stdatomic.h>

G_BEGIN_DECLS

typedef struct
{
  gint64  t_ns;      /* CLOCK_MONOTONIC time of the sample */
  gint64  value_ns;  /* latency, RTT, or another figure in ns (engines say which) */
  guint32 channel;   /* measurement thread, CPU or stream */
  guint32 flags;     /* engine-specific (e.g. overrun, lost) */
} QfSample;

typedef struct QfRing QfRing;

QfRing  *qf_ring_new      (guint          capacity);
void     qf_ring_free     (QfRing        *ring);
guint    qf_ring_capacity (const QfRing  *ring);
gboolean qf_ring_push     (QfRing        *ring,
                           const QfSample *sample);
guint    qf_ring_pop      (QfRing        *ring,
                           QfSample      *out,
                           guint          max_samples);
guint64  qf_ring_dropped  (const QfRing  *ring);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfRing, qf_ring_free)

G_END_DECLS
