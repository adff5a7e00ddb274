/* fuzz-mdns.c — qf_dns_parse (src/engine/qf-mdns.c), the bounded DNS reader that discovery runs
 * on every packet heard on UDP 5353, on arbitrary bytes. What parses is read with every
 * accessor the announcer and the browser use, written back with the writer (compressing names
 * its own way) and parsed again: the second reading must give the same names, types and data. */
#include <stdint.h>
#include <string.h>

#include "qf-discovery-private.h"
#include "qf-mdns.h"
#include "qf-text.h"

/* What the browser shows of text from the network: valid UTF-8 without a control character. */
static void
check_clean (const char *text)
{
  g_autofree char *clean = text != NULL ? qf_text_clean (text, -1) : NULL;

  if (clean == NULL)
    return;
  g_assert_true (g_utf8_validate (clean, -1, NULL));
  for (const char *p = clean; *p != '\0'; p = g_utf8_next_char (p))
    g_assert_false (g_unichar_iscntrl (g_utf8_get_char (p)));
}

static gsize
rewrite (const QfDnsMessage *msg,
         guint8             *buf,
         gsize               cap)
{
  QfDnsWriter w;

  qf_dns_writer_init (&w, buf, cap, msg->id, msg->flags);
  for (guint i = 0; i < msg->n_questions; i++)
    qf_dns_writer_question (&w, msg->questions[i].name, msg->questions[i].type,
                            msg->questions[i].klass);
  for (guint i = 0; i < msg->n_records; i++)
    {
      const QfDnsRecord *r = &msg->records[i];
      QfDnsSection section = i < msg->n_answers ? QF_DNS_SECTION_ANSWER : QF_DNS_SECTION_ADDITIONAL;

      if (r->type == QF_DNS_TYPE_PTR)
        qf_dns_writer_ptr (&w, section, r->name, r->klass, r->ttl, r->target);
      else if (r->type == QF_DNS_TYPE_SRV)
        qf_dns_writer_srv (&w, section, r->name, r->klass, r->ttl, r->port, r->target);
      else if (r->type == QF_DNS_TYPE_A || r->type == QF_DNS_TYPE_AAAA)
        qf_dns_writer_address (&w, section, r->name, r->klass, r->ttl, r->address,
                               r->type == QF_DNS_TYPE_A ? 4 : 16);
      else
        {
          const char *none[] = { "k=v", NULL };
          qf_dns_writer_txt (&w, section, r->name, r->klass, r->ttl, none);
        }
    }
  return qf_dns_writer_finish (&w);
}

static void
compare (const QfDnsMessage *a,
         const QfDnsMessage *b)
{
  g_assert_cmpuint (a->n_questions, ==, b->n_questions);
  g_assert_cmpuint (a->n_records, ==, b->n_records);
  for (guint i = 0; i < a->n_questions; i++)
    {
      g_assert_true (qf_dns_name_equal (a->questions[i].name, b->questions[i].name));
      g_assert_cmpuint (a->questions[i].type, ==, b->questions[i].type);
    }
  for (guint i = 0; i < a->n_records; i++)
    {
      const QfDnsRecord *r = &a->records[i], *s = &b->records[i];

      g_assert_true (qf_dns_name_equal (r->name, s->name));
      if (r->type == QF_DNS_TYPE_PTR || r->type == QF_DNS_TYPE_SRV)
        g_assert_true (qf_dns_name_equal (r->target, s->target));
      if (r->type == QF_DNS_TYPE_SRV)
        g_assert_cmpuint (r->port, ==, s->port);
      if (r->type == QF_DNS_TYPE_A || r->type == QF_DNS_TYPE_AAAA)
        g_assert_cmpmem (r->address, r->type == QF_DNS_TYPE_A ? 4 : 16,
                         s->address, s->type == QF_DNS_TYPE_A ? 4 : 16);
    }
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree QfDnsMessage *msg = g_new0 (QfDnsMessage, 1);
  g_autofree QfDnsMessage *again = g_new0 (QfDnsMessage, 1);
  g_autofree guint8 *buf = g_malloc (QF_MDNS_MAX_PACKET);
  gsize len;

  if (!qf_dns_parse (data, size, msg))
    return 0;
  for (guint i = 0; i < msg->n_questions; i++)
    {
      g_autofree char *label = qf_dns_first_label (msg->questions[i].name);
      check_clean (label);
    }
  for (guint i = 0; i < msg->n_records; i++)
    if (msg->records[i].type == QF_DNS_TYPE_TXT)
      {
        const char *keys[] = { "v", "lat", "bw", "code", "name", "proto" };
        for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
          {
            g_autofree char *value = qf_dns_txt_get (msg->records[i].txt,
                                                     msg->records[i].txt_len, keys[k]);
            check_clean (value);
          }
      }
  /* 0 when a name that fits compressed the sender's way does not fit ours: nothing to compare. */
  len = rewrite (msg, buf, QF_MDNS_MAX_PACKET);
  if (len > 0)
    {
      g_assert_true (qf_dns_parse (buf, len, again));
      compare (msg, again);
    }
  return 0;
}
