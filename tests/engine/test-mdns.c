/* test-mdns.c — the DNS codec of discovery (src/engine/qf-mdns.c): what the writer builds parses
 * back the same, names are compressed, and malformed packets (pointer loops, forward pointers,
 * truncation, oversized names and counts) are refused without reading outside the packet. */
#include <string.h>

#include "qf-discovery-private.h"
#include "qf-mdns.h"

static const char *txt_strings[] = { "v=0.1.0", "lat=11111", "bw=5201", "code=1",
                                     "name=Lab PC. 2", "proto=1", NULL };
static const guint8 ll6[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
static const guint8 ip4[4] = { 169, 254, 3, 4 };

/* An answer as the announcer sends it; returns its length. */
static gsize
build_answer (guint8 *buf,
              gsize   cap)
{
  QfDnsWriter w;

  qf_dns_writer_init (&w, buf, cap, 0, QF_DNS_FLAG_RESPONSE | QF_DNS_FLAG_AA);
  qf_dns_writer_ptr (&w, QF_DNS_SECTION_ANSWER, "_qualify._tcp.local", 1, 120,
                     "Lab PC\\. 2._qualify._tcp.local");
  qf_dns_writer_srv (&w, QF_DNS_SECTION_ADDITIONAL, "Lab PC\\. 2._qualify._tcp.local", 0x8001,
                     120, 11111, "lab-qualify.local");
  qf_dns_writer_txt (&w, QF_DNS_SECTION_ADDITIONAL, "Lab PC\\. 2._qualify._tcp.local", 0x8001,
                     120, txt_strings);
  qf_dns_writer_address (&w, QF_DNS_SECTION_ADDITIONAL, "lab-qualify.local", 0x8001, 120, ll6, 16);
  qf_dns_writer_address (&w, QF_DNS_SECTION_ADDITIONAL, "lab-qualify.local", 0x8001, 120, ip4, 4);
  return qf_dns_writer_finish (&w);
}

static void
test_round_trip (void)
{
  g_autofree QfDnsMessage *msg = g_new0 (QfDnsMessage, 1);
  guint8 buf[1500];
  gsize len = build_answer (buf, sizeof buf);
  g_autofree char *name = NULL, *code = NULL, *label = NULL;

  g_assert_cmpuint (len, >, 12);
  g_assert_true (qf_dns_parse (buf, len, msg));
  g_assert_cmpuint (msg->flags, ==, QF_DNS_FLAG_RESPONSE | QF_DNS_FLAG_AA);
  g_assert_cmpuint (msg->n_answers, ==, 1);
  g_assert_cmpuint (msg->n_records, ==, 5);
  g_assert_cmpuint (msg->records[0].type, ==, QF_DNS_TYPE_PTR);
  g_assert_cmpstr (msg->records[0].target, ==, "Lab PC\\. 2._qualify._tcp.local");
  g_assert_true (qf_dns_name_equal (msg->records[0].name, "_QUALIFY._tcp.LOCAL"));
  label = qf_dns_first_label (msg->records[0].target);
  g_assert_cmpstr (label, ==, "Lab PC. 2");
  g_assert_cmpuint (msg->records[1].type, ==, QF_DNS_TYPE_SRV);
  g_assert_cmpuint (msg->records[1].port, ==, 11111);
  g_assert_cmpuint (msg->records[1].klass, ==, 0x8001);
  g_assert_cmpstr (msg->records[1].target, ==, "lab-qualify.local");
  g_assert_cmpuint (msg->records[2].type, ==, QF_DNS_TYPE_TXT);
  name = qf_dns_txt_get (msg->records[2].txt, msg->records[2].txt_len, "name");
  code = qf_dns_txt_get (msg->records[2].txt, msg->records[2].txt_len, "CODE");
  g_assert_cmpstr (name, ==, "Lab PC. 2");
  g_assert_cmpstr (code, ==, "1");
  g_assert_null (qf_dns_txt_get (msg->records[2].txt, msg->records[2].txt_len, "token"));
  g_assert_cmpmem (msg->records[3].address, 16, ll6, 16);
  g_assert_cmpuint (msg->records[4].type, ==, QF_DNS_TYPE_A);
  g_assert_cmpmem (msg->records[4].address, 4, ip4, 4);
}

/* Repeated names go out as pointers: far shorter than written in full. */
static void
test_compression (void)
{
  guint8 buf[1500];
  gsize len = build_answer (buf, sizeof buf);
  gsize full = 12 + 5 * 10 + 2 * 21 + 3 * 31 + 2 * 19 + 6 + 16 + 4 + 52;

  g_assert_cmpuint (len, <, full - 60);
  /* The PTR's target ends in the name it belongs to: a pointer back to offset 12. */
  g_assert_nonnull (memchr (buf, 0xC0, len));
}

static void
test_question (void)
{
  g_autofree QfDnsMessage *msg = g_new0 (QfDnsMessage, 1);
  guint8 buf[512];
  QfDnsWriter w;
  gsize len;

  qf_dns_writer_init (&w, buf, sizeof buf, 0x1234, 0);
  qf_dns_writer_question (&w, "_qualify._tcp.local", QF_DNS_TYPE_PTR, 0x8001);
  qf_dns_writer_question (&w, "_services._dns-sd._udp.local", QF_DNS_TYPE_PTR, 1);
  len = qf_dns_writer_finish (&w);
  g_assert_true (qf_dns_parse (buf, len, msg));
  g_assert_cmpuint (msg->id, ==, 0x1234);
  g_assert_cmpuint (msg->n_questions, ==, 2);
  g_assert_cmpstr (msg->questions[0].name, ==, "_qualify._tcp.local");
  g_assert_cmpuint (msg->questions[0].klass, ==, 0x8001);
  g_assert_cmpstr (msg->questions[1].name, ==, "_services._dns-sd._udp.local");
}

static void
put_header (guint8 *p,
            guint   qd,
            guint   an)
{
  memset (p, 0, 12);
  p[5] = (guint8) qd;
  p[6] = (guint8) (an >> 8);
  p[7] = (guint8) an;
}

/* Two questions: the first one's only label holds a zero byte and then a chain of pointers, each
 * to the one before (the first to the zero byte, a root name); the second question's name is a
 * pointer to the chain's end, so reading it follows hops pointers in all. */
static gboolean
chain_parses (guint         hops,
              QfDnsMessage *msg)
{
  guint8 p[512];
  gsize n = 12;
  guint chain = hops - 1;

  put_header (p, 2, 0);
  p[n++] = (guint8) (1 + 2 * chain);
  p[n++] = 0;
  for (guint i = 0; i < chain; i++, n += 2)
    {
      p[n] = 0xC0;
      p[n + 1] = (guint8) (i == 0 ? 13 : n - 2);
    }
  p[n++] = 0;
  memcpy (p + n, "\0\x0c\0\1", 4);
  n += 4;
  p[n] = 0xC0;
  p[n + 1] = (guint8) (n - 5 - 2);
  n += 2;
  memcpy (p + n, "\0\x0c\0\1", 4);
  n += 4;
  return qf_dns_parse (p, n, msg);
}

/* Pointer to itself, to a later byte, two pointing at each other, a chain past the hop
 * limit: all refused. */
static void
test_compression_loops (void)
{
  g_autofree QfDnsMessage *msg = g_new0 (QfDnsMessage, 1);
  guint8 p[512];

  put_header (p, 1, 0);
  p[12] = 0xC0; p[13] = 12; p[14] = 0; p[15] = 12; p[16] = 0; p[17] = 1;
  g_assert_false (qf_dns_parse (p, 18, msg));

  put_header (p, 1, 0);
  p[12] = 0xC0; p[13] = 16; p[14] = 0; p[15] = 12; p[16] = 0; p[17] = 1;
  g_assert_false (qf_dns_parse (p, 18, msg));

  g_assert_true (chain_parses (QF_DNS_MAX_POINTERS, msg));
  g_assert_false (chain_parses (QF_DNS_MAX_POINTERS + 1, msg));
}

static void
test_truncation (void)
{
  g_autofree QfDnsMessage *msg = g_new0 (QfDnsMessage, 1);
  guint8 buf[1500];
  gsize len = build_answer (buf, sizeof buf);

  for (gsize cut = 0; cut < len; cut++)
    g_assert_false (qf_dns_parse (buf, cut, msg));
  /* A byte left over is refused too. */
  buf[len] = 0;
  g_assert_false (qf_dns_parse (buf, len + 1, msg));
  g_assert_true (qf_dns_parse (buf, len, msg));
}

static void
test_oversize (void)
{
  g_autofree QfDnsMessage *msg = g_new0 (QfDnsMessage, 1);
  g_autofree char *long_label = g_strnfill (64, 'x');
  g_autofree char *long_name = NULL;
  GString *name = g_string_new (NULL);
  guint8 buf[1500], p[64];
  QfDnsWriter w;

  /* The writer refuses a label over 63 bytes and a name over 255. */
  qf_dns_writer_init (&w, buf, sizeof buf, 0, 0);
  qf_dns_writer_question (&w, long_label, QF_DNS_TYPE_PTR, 1);
  g_assert_cmpuint (qf_dns_writer_finish (&w), ==, 0);
  for (guint i = 0; i < 9; i++)
    g_string_append (name, "abcdefghijklmnopqrstuvwxyz0123.");
  g_string_append (name, "local");
  long_name = g_string_free (name, FALSE);
  qf_dns_writer_init (&w, buf, sizeof buf, 0, 0);
  qf_dns_writer_question (&w, long_name, QF_DNS_TYPE_PTR, 1);
  g_assert_cmpuint (qf_dns_writer_finish (&w), ==, 0);
  /* A buffer too small: nothing half-written. */
  g_assert_cmpuint (build_answer (buf, 100), ==, 0);

  /* Counts beyond the bounds. */
  put_header (p, 0, QF_DNS_MAX_RECORDS + 1);
  g_assert_false (qf_dns_parse (p, 12, msg));
  put_header (p, QF_DNS_MAX_QUESTIONS + 1, 0);
  g_assert_false (qf_dns_parse (p, 12, msg));
  /* A record whose length runs past the end. */
  put_header (p, 0, 1);
  memcpy (p + 12, "\0\0\1\0\1\0\0\0\x78\0\x10", 11);
  g_assert_false (qf_dns_parse (p, 23, msg));
  /* An A record of the wrong length. */
  memcpy (p + 12, "\0\0\1\0\1\0\0\0\x78\0\x03\1\2\3", 14);
  g_assert_false (qf_dns_parse (p, 26, msg));
  /* A label type that does not exist (0x40). */
  put_header (p, 1, 0);
  memcpy (p + 12, "\x41x\0\0\x0c\0\1", 7);
  g_assert_false (qf_dns_parse (p, 19, msg));
}

/* The TXT name is cut on a character boundary, never inside one. */
static void
test_text_cut (void)
{
  g_autofree char *name = g_strconcat ("0123456789", "\xc3\xa9\xc3\xa9", NULL);
  g_autofree char *cut = _qf_discovery_text_cut (name, 11);
  g_autofree char *whole = _qf_discovery_text_cut (name, 14);
  g_autofree char *ascii = _qf_discovery_text_cut ("abc", 2);

  g_assert_cmpstr (cut, ==, "0123456789");
  g_assert_cmpstr (whole, ==, name);
  g_assert_cmpstr (ascii, ==, "ab");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/mdns/round-trip", test_round_trip);
  g_test_add_func ("/engine/mdns/compression", test_compression);
  g_test_add_func ("/engine/mdns/question", test_question);
  g_test_add_func ("/engine/mdns/compression-loops", test_compression_loops);
  g_test_add_func ("/engine/mdns/truncation", test_truncation);
  g_test_add_func ("/engine/mdns/oversize", test_oversize);
  g_test_add_func ("/engine/mdns/text-cut", test_text_cut);
  return g_test_run ();
}
