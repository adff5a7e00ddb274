/* test-histogram.c — invariants of the shared latency histogram (tests/engine). */
#include "config.h"

#include "qf-histogram.h"

static void
test_totals (void)
{
  g_autoptr(QfHistogram) h = qf_histogram_new (1000, 100);  /* 1 µs buckets to 100 µs */
  guint64 sum = 0;

  for (gint64 v = 0; v < 150000; v += 500)   /* 0 … 149.5 µs: the top third overflows */
    qf_histogram_add (h, v);

  for (guint i = 0; i < h->n_buckets; i++)
    sum += h->counts[i];
  g_assert_cmpuint (sum + h->overflow, ==, h->count);
  g_assert_cmpuint (h->count, ==, 300);
  g_assert_cmpuint (h->overflow, ==, 100);
  g_assert_cmpint (h->min_ns, ==, 0);
  g_assert_cmpint (h->max_ns, ==, 149500);
  g_assert_cmpfloat_with_epsilon (qf_histogram_mean_ns (h), 74750.0, 0.001);
}

static void
test_percentiles (void)
{
  g_autoptr(QfHistogram) h = qf_histogram_new (1000, 10000);
  gint64 p50, p90, p99, p999;

  for (gint64 us = 1; us <= 1000; us++)
    qf_histogram_add (h, us * 1000 + 300);

  p50 = qf_histogram_percentile_ns (h, 0.50);
  p90 = qf_histogram_percentile_ns (h, 0.90);
  p99 = qf_histogram_percentile_ns (h, 0.99);
  p999 = qf_histogram_percentile_ns (h, 0.999);
  /* nearest rank: the 500th of 1..1000 µs is 500 µs (bucket lower edge) */
  g_assert_cmpint (p50, ==, 500000);
  g_assert_cmpint (p90, ==, 900000);
  g_assert_cmpint (p99, ==, 990000);
  g_assert_cmpint (p999, ==, 999000);
  g_assert_cmpint (h->min_ns, <=, p50);
  g_assert_cmpint (p50, <=, p90);
  g_assert_cmpint (p99, <=, p999);
  g_assert_cmpint (p999, <=, h->max_ns);
  g_assert_cmpint (qf_histogram_percentile_ns (h, 1.0), ==, h->max_ns);
  g_assert_cmpint (qf_histogram_percentile_ns (h, 0.0), ==, h->min_ns);
}

static void
test_overflow_percentile_is_max (void)
{
  g_autoptr(QfHistogram) h = qf_histogram_new (1000, 10);

  qf_histogram_add (h, 2000);
  qf_histogram_add (h, 5000000);
  g_assert_cmpint (qf_histogram_percentile_ns (h, 0.99), ==, 5000000);
}

static void
test_merge (void)
{
  g_autoptr(QfHistogram) a = qf_histogram_new (1000, 100);
  g_autoptr(QfHistogram) b = qf_histogram_new (1000, 100);
  g_autoptr(QfHistogram) c = qf_histogram_new (2000, 100);

  qf_histogram_add (a, 5000);
  qf_histogram_add (b, 1000);
  qf_histogram_add (b, 9000);
  g_assert_true (qf_histogram_merge (a, b));
  g_assert_cmpuint (a->count, ==, 3);
  g_assert_cmpint (a->min_ns, ==, 1000);
  g_assert_cmpint (a->max_ns, ==, 9000);
  g_assert_cmpint (a->sum_ns, ==, 15000);
  g_assert_false (qf_histogram_merge (a, c));
}

static void
test_empty (void)
{
  g_autoptr(QfHistogram) h = qf_histogram_new (1000, 10);

  g_assert_cmpuint (h->count, ==, 0);
  g_assert_cmpfloat (qf_histogram_mean_ns (h), ==, 0.0);
  g_assert_cmpint (qf_histogram_percentile_ns (h, 0.5), ==, 0);
  g_assert_cmpuint (qf_histogram_last_used_bucket (h), ==, 0);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/histogram/totals", test_totals);
  g_test_add_func ("/engine/histogram/percentiles", test_percentiles);
  g_test_add_func ("/engine/histogram/overflow-percentile-is-max", test_overflow_percentile_is_max);
  g_test_add_func ("/engine/histogram/merge", test_merge);
  g_test_add_func ("/engine/histogram/empty", test_empty);
  return g_test_run ();
}
