/* test-ring.c — the SPSC sample ring: order kept, drops counted, never blocks (tests/engine). */
#include "config.h"

#include "qf-ring.h"

static void
test_order_and_drop (void)
{
  g_autoptr(QfRing) ring = qf_ring_new (5);   /* rounds up to 8 */
  QfSample s = { 0 }, out[16];
  guint n;

  g_assert_cmpuint (qf_ring_capacity (ring), ==, 8);
  for (guint i = 0; i < 10; i++)
    {
      s.value_ns = i;
      qf_ring_push (ring, &s);
    }
  g_assert_cmpuint (qf_ring_dropped (ring), ==, 2);
  n = qf_ring_pop (ring, out, G_N_ELEMENTS (out));
  g_assert_cmpuint (n, ==, 8);
  for (guint i = 0; i < n; i++)
    g_assert_cmpint (out[i].value_ns, ==, i);
  g_assert_cmpuint (qf_ring_pop (ring, out, 16), ==, 0);
}

typedef struct
{
  QfRing *ring;
  guint64 n;
} Producer;

static gpointer
produce (gpointer data)
{
  Producer *p = data;
  QfSample s = { 0 };

  for (guint64 i = 0; i < p->n; i++)
    {
      s.value_ns = (gint64) i;
      qf_ring_push (p->ring, &s);
    }
  return NULL;
}

/* Two threads: every sample is either received, in order, or counted as dropped. */
static void
test_threads_account_for_everything (void)
{
  g_autoptr(QfRing) ring = qf_ring_new (1024);
  Producer p = { ring, 2000000 };
  GThread *thread;
  QfSample out[256];
  guint64 received = 0;
  gint64 last = -1;
  gboolean done = FALSE;

  thread = g_thread_new ("producer", produce, &p);
  while (!done)
    {
      guint n = qf_ring_pop (ring, out, G_N_ELEMENTS (out));

      for (guint i = 0; i < n; i++)
        {
          g_assert_cmpint (out[i].value_ns, >, last);
          last = out[i].value_ns;
        }
      received += n;
      if (n == 0 && received + qf_ring_dropped (ring) == p.n)
        done = TRUE;
    }
  g_thread_join (thread);
  g_assert_cmpuint (received + qf_ring_dropped (ring), ==, p.n);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/ring/order-and-drop", test_order_and_drop);
  g_test_add_func ("/engine/ring/threads-account-for-everything", test_threads_account_for_everything);
  return g_test_run ();
}
