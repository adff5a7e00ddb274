/* qf-histogram.c — exact latency statistics shared by the rt, ping and socket engines.
 * See qf-histogram.h; nothing here is called from a measuring loop except the inline add. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "qf-histogram.h"

QfHistogram *
qf_histogram_new (gint64 bucket_ns,
                  guint  n_buckets)
{
  QfHistogram *hist;

  g_return_val_if_fail (bucket_ns > 0, NULL);
  g_return_val_if_fail (n_buckets > 0, NULL);

  hist = g_new0 (QfHistogram, 1);
  hist->bucket_ns = bucket_ns;
  hist->n_buckets = n_buckets;
  hist->counts = g_new0 (guint64, n_buckets);
  return hist;
}

void
qf_histogram_free (QfHistogram *hist)
{
  if (hist == NULL)
    return;
  g_free (hist->counts);
  g_free (hist);
}

void
qf_histogram_reset (QfHistogram *hist)
{
  g_return_if_fail (hist != NULL);

  memset (hist->counts, 0, sizeof (guint64) * hist->n_buckets);
  hist->overflow = 0;
  hist->count = 0;
  hist->min_ns = 0;
  hist->max_ns = 0;
  hist->last_ns = 0;
  hist->sum_ns = 0;
  hist->sum_sq_ns2 = 0;
}

/* Adds src into dest; both must have the same bucket layout. */
gboolean
qf_histogram_merge (QfHistogram       *dest,
                    const QfHistogram *src)
{
  g_return_val_if_fail (dest != NULL && src != NULL, FALSE);

  if (dest->bucket_ns != src->bucket_ns || dest->n_buckets != src->n_buckets)
    return FALSE;
  if (src->count == 0)
    return TRUE;

  for (guint i = 0; i < dest->n_buckets; i++)
    dest->counts[i] += src->counts[i];
  dest->overflow += src->overflow;
  if (dest->count == 0 || src->min_ns < dest->min_ns)
    dest->min_ns = src->min_ns;
  if (dest->count == 0 || src->max_ns > dest->max_ns)
    dest->max_ns = src->max_ns;
  dest->count += src->count;
  dest->last_ns = src->last_ns;
  dest->sum_ns += src->sum_ns;
  dest->sum_sq_ns2 += src->sum_sq_ns2;
  return TRUE;
}

gdouble
qf_histogram_mean_ns (const QfHistogram *hist)
{
  g_return_val_if_fail (hist != NULL, 0);

  return hist->count ? (gdouble) hist->sum_ns / (gdouble) hist->count : 0.0;
}

gdouble
qf_histogram_stddev_ns (const QfHistogram *hist)
{
  gdouble mean, var;

  g_return_val_if_fail (hist != NULL, 0);

  if (hist->count < 2)
    return 0.0;
  mean = qf_histogram_mean_ns (hist);
  var = hist->sum_sq_ns2 / (gdouble) hist->count - mean * mean;
  return var > 0 ? sqrt (var) : 0.0;
}

/* Nearest-rank percentile: the lower edge of the bucket holding the ceil(fraction × count)-th
 * smallest sample, clamped to [min, max] so it never reads below the true minimum. A rank that
 * lands in the overflow returns the exact maximum. */
gint64
qf_histogram_percentile_ns (const QfHistogram *hist,
                            gdouble            fraction)
{
  guint64 rank, seen = 0;

  g_return_val_if_fail (hist != NULL, 0);

  if (hist->count == 0)
    return 0;
  if (fraction <= 0)
    return hist->min_ns;
  if (fraction >= 1)
    return hist->max_ns;

  rank = (guint64) ceil (fraction * (gdouble) hist->count);
  if (rank == 0)
    rank = 1;

  for (guint i = 0; i < hist->n_buckets; i++)
    {
      seen += hist->counts[i];
      if (seen >= rank)
        {
          gint64 value = (gint64) i * hist->bucket_ns;
          return CLAMP (value, hist->min_ns, hist->max_ns);
        }
    }
  return hist->max_ns;
}

/* Index of the highest non-empty bucket + 1 (0 when empty): how far a plot or a JSON dump of
 * the buckets needs to go. */
guint
qf_histogram_last_used_bucket (const QfHistogram *hist)
{
  g_return_val_if_fail (hist != NULL, 0);

  for (guint i = hist->n_buckets; i > 0; i--)
    if (hist->counts[i - 1] != 0)
      return i;
  return 0;
}
