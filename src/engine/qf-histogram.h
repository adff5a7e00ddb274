/* qf-histogram.h — exact latency statistics for the measurement engines (src/engine).
 *
 * A fixed array of equal-width buckets plus an overflow count, and exact count/min/max/sum kept
 * beside it, so the min, max and mean never depend on the bucket width and percentiles are exact
 * to one bucket. Allocated once before a run; adding a sample allocates, locks and logs nothing.
 * One writer at a time: each measurement thread owns its histogram; merge them after the join.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gint64   bucket_ns;   /* width of one bucket */
  guint    n_buckets;   /* buckets cover [0, n_buckets * bucket_ns) */
  guint64 *counts;
  guint64  overflow;    /* samples at or beyond n_buckets * bucket_ns */
  guint64  count;       /* all samples, overflow included */
  gint64   min_ns;
  gint64   max_ns;
  gint64   last_ns;
  gint64   sum_ns;      /* 10 million samples of 10 ms each still fit in 63 bits */
  gdouble  sum_sq_ns2;  /* for the standard deviation */
} QfHistogram;

QfHistogram *qf_histogram_new            (gint64             bucket_ns,
                                          guint              n_buckets);
void         qf_histogram_free           (QfHistogram       *hist);
void         qf_histogram_reset          (QfHistogram       *hist);
gboolean     qf_histogram_merge          (QfHistogram       *dest,
                                          const QfHistogram *src);
gdouble      qf_histogram_mean_ns        (const QfHistogram *hist);
gdouble      qf_histogram_stddev_ns      (const QfHistogram *hist);
gint64       qf_histogram_percentile_ns  (const QfHistogram *hist,
                                          gdouble            fraction);
guint        qf_histogram_last_used_bucket (const QfHistogram *hist);

/* Hot path: inline so a measuring loop pays a few instructions per sample. Negative values
 * (a clock read before its deadline cannot happen with TIMER_ABSTIME, but be safe) count in
 * bucket 0 while min/max keep the true value. */
static inline void
qf_histogram_add (QfHistogram *hist,
                  gint64       value_ns)
{
  gint64 idx = value_ns > 0 ? value_ns / hist->bucket_ns : 0;

  if (idx < (gint64) hist->n_buckets)
    hist->counts[idx]++;
  else
    hist->overflow++;

  if (hist->count == 0 || value_ns < hist->min_ns)
    hist->min_ns = value_ns;
  if (hist->count == 0 || value_ns > hist->max_ns)
    hist->max_ns = value_ns;
  hist->count++;
  hist->last_ns = value_ns;
  hist->sum_ns += value_ns;
  hist->sum_sq_ns2 += (gdouble) value_ns * (gdouble) value_ns;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfHistogram, qf_histogram_free)

G_END_DECLS
