/* qf-mdns.c — the bounded DNS message codec of discovery (src/engine). See qf-mdns.h.
 *
 * Names travel inside the codec in their uncompressed wire form (length-prefixed labels ending
 * with a zero byte, at most QF_DNS_MAX_NAME bytes); the dotted text form is made only at the
 * edges. The writer finds compression targets by reading back the names it already wrote.
 */
#include "config.h"

#include <string.h>

#include "qf-mdns.h"

#define HEADER_LEN 12

static guint16
get16 (const guint8 *p)
{
  return (guint16) ((p[0] << 8) | p[1]);
}

static guint32
get32 (const guint8 *p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) | ((guint32) p[2] << 8) | p[3];
}

/* ---- names ---------------------------------------------------------------------------------- */

/* Reads the name at *pos of packet into wire (uncompressed, at most QF_DNS_MAX_NAME bytes) and
 * moves *pos past it (past the first pointer when the name is compressed). A pointer must point
 * before the label that holds it, at most QF_DNS_MAX_POINTERS are followed. */
static gboolean
read_name (const guint8 *packet,
           gsize         len,
           gsize        *pos,
           guint8       *wire,
           gsize        *wire_len)
{
  gsize at = *pos, out = 0, end = 0;
  guint hops = 0;

  for (;;)
    {
      guint8 label;

      if (at >= len)
        return FALSE;
      label = packet[at];
      if ((label & 0xC0) == 0xC0)
        {
          gsize target;

          if (at + 1 >= len || ++hops > QF_DNS_MAX_POINTERS)
            return FALSE;
          target = ((gsize) (label & 0x3F) << 8) | packet[at + 1];
          if (target >= at || target < HEADER_LEN)
            return FALSE;
          if (end == 0)
            end = at + 2;
          at = target;
          continue;
        }
      if ((label & 0xC0) != 0)
        return FALSE;
      if (out + 1 + label > QF_DNS_MAX_NAME || at + 1 + label > len)
        return FALSE;
      memcpy (wire + out, packet + at, 1 + (gsize) label);
      out += 1 + (gsize) label;
      at += 1 + (gsize) label;
      if (label == 0)
        break;
    }
  *pos = end != 0 ? end : at;
  *wire_len = out;
  return TRUE;
}

/* Wire form to dotted text; text holds QF_DNS_MAX_TEXT bytes, which every name of at most
 * QF_DNS_MAX_NAME wire bytes fits (each byte takes at most 4). */
static void
wire_to_text (const guint8 *wire,
              char         *text)
{
  gsize out = 0;

  for (gsize at = 0; wire[at] != 0; at += 1 + wire[at])
    {
      if (out > 0)
        text[out++] = '.';
      for (guint i = 1; i <= wire[at]; i++)
        {
          guint8 c = wire[at + i];

          if (c == '.' || c == '\\')
            {
              text[out++] = '\\';
              text[out++] = (char) c;
            }
          else if (c < 0x20 || c == 0x7F)
            out += (gsize) g_snprintf (text + out, 5, "\\%03u", c);
          else
            text[out++] = (char) c;
        }
    }
  text[out] = '\0';
}

/* Dotted text to wire form; FALSE when a label is empty or too long, or the name too long. */
static gboolean
text_to_wire (const char *text,
              guint8     *wire,
              gsize      *wire_len)
{
  gsize out = 0, label_at = 0;
  const char *p = text;

  if (*p == '\0' || g_str_equal (p, "."))
    {
      wire[0] = 0;
      *wire_len = 1;
      return TRUE;
    }
  wire[0] = 0;
  out = 1;
  for (;;)
    {
      guint8 c;

      if (*p == '\0' || *p == '.')
        {
          gsize label_len = out - label_at - 1;

          if (label_len == 0 || label_len > QF_DNS_MAX_LABEL)
            return FALSE;
          wire[label_at] = (guint8) label_len;
          if (*p == '\0' || p[1] == '\0')
            break;
          p++;
          label_at = out;
          if (out + 1 > QF_DNS_MAX_NAME - 1)
            return FALSE;
          wire[out++] = 0;
          continue;
        }
      if (*p == '\\' && g_ascii_isdigit (p[1]) && g_ascii_isdigit (p[2]) && g_ascii_isdigit (p[3]))
        {
          guint v = (guint) ((p[1] - '0') * 100 + (p[2] - '0') * 10 + (p[3] - '0'));
          if (v > 255)
            return FALSE;
          c = (guint8) v;
          p += 4;
        }
      else if (*p == '\\' && p[1] != '\0')
        {
          c = (guint8) p[1];
          p += 2;
        }
      else
        c = (guint8) *p++;
      if (out + 1 > QF_DNS_MAX_NAME - 1)
        return FALSE;
      wire[out++] = c;
    }
  wire[out++] = 0;
  *wire_len = out;
  return TRUE;
}

static gboolean
wire_equal (const guint8 *a,
            gsize         a_len,
            const guint8 *b,
            gsize         b_len)
{
  if (a_len != b_len)
    return FALSE;
  for (gsize i = 0; i < a_len; i++)
    if (g_ascii_tolower (a[i]) != g_ascii_tolower (b[i]))
      return FALSE;
  return TRUE;
}

gboolean
qf_dns_name_equal (const char *a,
                   const char *b)
{
  guint8 wa[QF_DNS_MAX_NAME], wb[QF_DNS_MAX_NAME];
  gsize la, lb;

  if (!text_to_wire (a, wa, &la) || !text_to_wire (b, wb, &lb))
    return FALSE;
  return wire_equal (wa, la, wb, lb);
}

char *
qf_dns_label_escape (const char *label)
{
  GString *out = g_string_new (NULL);

  for (const char *p = label; *p != '\0'; p++)
    {
      guint8 c = (guint8) *p;

      if (c == '.' || c == '\\')
        g_string_append_c (out, '\\');
      if (c < 0x20 || c == 0x7F)
        g_string_append_printf (out, "\\%03u", c);
      else
        g_string_append_c (out, (char) c);
    }
  return g_string_free (out, FALSE);
}

char *
qf_dns_first_label (const char *name)
{
  guint8 wire[QF_DNS_MAX_NAME];
  gsize wire_len;

  if (!text_to_wire (name, wire, &wire_len) || wire[0] == 0)
    return NULL;
  return g_strndup ((const char *) wire + 1, wire[0]);
}

/* ---- parsing -------------------------------------------------------------------------------- */

static gboolean
read_text_name (const guint8 *packet,
                gsize         len,
                gsize        *pos,
                char         *text)
{
  guint8 wire[QF_DNS_MAX_NAME];
  gsize wire_len;

  if (!read_name (packet, len, pos, wire, &wire_len))
    return FALSE;
  wire_to_text (wire, text);
  return TRUE;
}

static gboolean
parse_txt (const guint8 *rdata,
           gsize         rdlen)
{
  gsize at = 0;

  while (at < rdlen)
    at += 1 + (gsize) rdata[at];
  return at == rdlen;
}

/* The record data of rec, in packet[pos, pos + rdlen). */
static gboolean
parse_rdata (const guint8 *packet,
             gsize         pos,
             gsize         rdlen,
             QfDnsRecord  *rec)
{
  gsize end = pos + rdlen;

  switch (rec->type)
    {
    case QF_DNS_TYPE_PTR:
      return read_text_name (packet, end, &pos, rec->target) && pos == end;
    case QF_DNS_TYPE_SRV:
      if (rdlen < 7)
        return FALSE;
      rec->priority = get16 (packet + pos);
      rec->weight = get16 (packet + pos + 2);
      rec->port = get16 (packet + pos + 4);
      pos += 6;
      return read_text_name (packet, end, &pos, rec->target) && pos == end;
    case QF_DNS_TYPE_A:
    case QF_DNS_TYPE_AAAA:
      if (rdlen != (rec->type == QF_DNS_TYPE_A ? 4u : 16u))
        return FALSE;
      memcpy (rec->address, packet + pos, rdlen);
      return TRUE;
    case QF_DNS_TYPE_TXT:
      rec->txt = packet + pos;
      rec->txt_len = (guint16) rdlen;
      return parse_txt (rec->txt, rdlen);
    default:
      return TRUE;
    }
}

static gboolean
parse_record (const guint8 *packet,
              gsize         len,
              gsize        *pos,
              QfDnsRecord  *rec)
{
  gsize rdlen;

  memset (rec, 0, sizeof *rec);
  if (!read_text_name (packet, len, pos, rec->name) || *pos + 10 > len)
    return FALSE;
  rec->type = get16 (packet + *pos);
  rec->klass = get16 (packet + *pos + 2);
  rec->ttl = get32 (packet + *pos + 4);
  rdlen = get16 (packet + *pos + 8);
  *pos += 10;
  if (rdlen > len - *pos || !parse_rdata (packet, *pos, rdlen, rec))
    return FALSE;
  *pos += rdlen;
  return TRUE;
}

gboolean
qf_dns_parse (const guint8 *packet,
              gsize         len,
              QfDnsMessage *msg)
{
  guint qd, an, ns, ar;
  gsize pos = HEADER_LEN;

  g_return_val_if_fail (msg != NULL, FALSE);

  if (packet == NULL || len < HEADER_LEN || len > QF_MDNS_MAX_PACKET)
    return FALSE;
  msg->id = get16 (packet);
  msg->flags = get16 (packet + 2);
  qd = get16 (packet + 4);
  an = get16 (packet + 6);
  ns = get16 (packet + 8);
  ar = get16 (packet + 10);
  if (qd > QF_DNS_MAX_QUESTIONS || an + ns + ar > QF_DNS_MAX_RECORDS)
    return FALSE;
  msg->n_questions = qd;
  msg->n_answers = an;
  msg->n_records = an + ns + ar;
  for (guint i = 0; i < qd; i++)
    {
      QfDnsQuestion *q = &msg->questions[i];

      if (!read_text_name (packet, len, &pos, q->name) || pos + 4 > len)
        return FALSE;
      q->type = get16 (packet + pos);
      q->klass = get16 (packet + pos + 2);
      pos += 4;
    }
  for (guint i = 0; i < msg->n_records; i++)
    if (!parse_record (packet, len, &pos, &msg->records[i]))
      return FALSE;
  return pos == len;
}

char *
qf_dns_txt_get (const guint8 *txt,
                gsize         len,
                const char   *key)
{
  gsize key_len = strlen (key);

  for (gsize at = 0; at < len && at + 1 + txt[at] <= len; at += 1 + (gsize) txt[at])
    {
      const char *s = (const char *) txt + at + 1;
      gsize n = txt[at];

      if (n < key_len || g_ascii_strncasecmp (s, key, key_len) != 0)
        continue;
      if (n == key_len)
        return g_strdup ("");
      if (s[key_len] == '=')
        return g_strndup (s + key_len + 1, n - key_len - 1);
    }
  return NULL;
}

/* ---- writing -------------------------------------------------------------------------------- */

static void
put (QfDnsWriter  *w,
     const void   *data,
     gsize         n)
{
  if (w->overflow || n > w->cap - w->len)
    {
      w->overflow = TRUE;
      return;
    }
  memcpy (w->buf + w->len, data, n);
  w->len += n;
}

static void
put16 (QfDnsWriter *w,
       guint16      v)
{
  guint8 b[2] = { (guint8) (v >> 8), (guint8) v };
  put (w, b, 2);
}

static void
put32 (QfDnsWriter *w,
       guint32      v)
{
  guint8 b[4] = { (guint8) (v >> 24), (guint8) (v >> 16), (guint8) (v >> 8), (guint8) v };
  put (w, b, 4);
}

void
qf_dns_writer_init (QfDnsWriter *w,
                    guint8      *buf,
                    gsize        cap,
                    guint16      id,
                    guint16      flags)
{
  memset (w, 0, sizeof *w);
  w->buf = buf;
  w->cap = cap;
  put16 (w, id);
  put16 (w, flags);
  for (guint i = 0; i < 4; i++)
    put16 (w, 0);
}

/* The offset of a name already written that equals wire's suffix, or -1. */
static gint
find_written (QfDnsWriter  *w,
              const guint8 *suffix,
              gsize         suffix_len)
{
  for (guint i = 0; i < w->n_offsets; i++)
    {
      guint8 wire[QF_DNS_MAX_NAME];
      gsize pos = w->offsets[i], wire_len;

      if (read_name (w->buf, w->len, &pos, wire, &wire_len)
          && wire_equal (wire, wire_len, suffix, suffix_len))
        return w->offsets[i];
    }
  return -1;
}

static void
put_name (QfDnsWriter *w,
          const char  *name)
{
  guint8 wire[QF_DNS_MAX_NAME];
  gsize wire_len, at = 0;

  if (!text_to_wire (name, wire, &wire_len))
    {
      w->overflow = TRUE;
      return;
    }
  while (wire[at] != 0)
    {
      gint target = find_written (w, wire + at, wire_len - at);

      if (target >= 0)
        {
          put16 (w, (guint16) (0xC000 | target));
          return;
        }
      if (w->len < 0x3FFF && w->n_offsets < G_N_ELEMENTS (w->offsets) && !w->overflow)
        w->offsets[w->n_offsets++] = (guint16) w->len;
      put (w, wire + at, 1 + (gsize) wire[at]);
      at += 1 + (gsize) wire[at];
    }
  put (w, wire + at, 1);
}

void
qf_dns_writer_question (QfDnsWriter *w,
                        const char  *name,
                        guint16      type,
                        guint16      klass)
{
  put_name (w, name);
  put16 (w, type);
  put16 (w, klass);
  w->n_questions++;
}

/* Writes a record's head and leaves room for its length; returns where the length goes. */
static gsize
begin_record (QfDnsWriter  *w,
              QfDnsSection  section,
              const char   *name,
              guint16       type,
              guint16       klass,
              guint32       ttl)
{
  gsize length_at;

  put_name (w, name);
  put16 (w, type);
  put16 (w, klass);
  put32 (w, ttl);
  length_at = w->len;
  put16 (w, 0);
  if (section == QF_DNS_SECTION_ANSWER)
    w->n_answers++;
  else if (section == QF_DNS_SECTION_AUTHORITY)
    w->n_authority++;
  else
    w->n_additional++;
  return length_at;
}

static void
end_record (QfDnsWriter *w,
            gsize        length_at)
{
  gsize rdlen;

  if (w->overflow)
    return;
  rdlen = w->len - length_at - 2;
  w->buf[length_at] = (guint8) (rdlen >> 8);
  w->buf[length_at + 1] = (guint8) rdlen;
}

void
qf_dns_writer_ptr (QfDnsWriter  *w,
                   QfDnsSection  section,
                   const char   *name,
                   guint16       klass,
                   guint32       ttl,
                   const char   *target)
{
  gsize at = begin_record (w, section, name, QF_DNS_TYPE_PTR, klass, ttl);
  put_name (w, target);
  end_record (w, at);
}

void
qf_dns_writer_srv (QfDnsWriter  *w,
                   QfDnsSection  section,
                   const char   *name,
                   guint16       klass,
                   guint32       ttl,
                   guint16       port,
                   const char   *target)
{
  gsize at = begin_record (w, section, name, QF_DNS_TYPE_SRV, klass, ttl);
  put16 (w, 0);
  put16 (w, 0);
  put16 (w, port);
  put_name (w, target);
  end_record (w, at);
}

void
qf_dns_writer_txt (QfDnsWriter        *w,
                   QfDnsSection        section,
                   const char         *name,
                   guint16             klass,
                   guint32             ttl,
                   const char * const *strings)
{
  gsize at = begin_record (w, section, name, QF_DNS_TYPE_TXT, klass, ttl);

  for (guint i = 0; strings[i] != NULL; i++)
    {
      gsize n = strlen (strings[i]);
      guint8 n8 = (guint8) n;

      if (n > 255)
        {
          w->overflow = TRUE;
          return;
        }
      put (w, &n8, 1);
      put (w, strings[i], n);
    }
  end_record (w, at);
}

void
qf_dns_writer_address (QfDnsWriter  *w,
                       QfDnsSection  section,
                       const char   *name,
                       guint16       klass,
                       guint32       ttl,
                       const guint8 *address,
                       gsize         len)
{
  gsize at;

  g_return_if_fail (len == 4 || len == 16);
  at = begin_record (w, section, name, len == 4 ? QF_DNS_TYPE_A : QF_DNS_TYPE_AAAA, klass, ttl);
  put (w, address, len);
  end_record (w, at);
}

gsize
qf_dns_writer_finish (QfDnsWriter *w)
{
  if (w->overflow || w->len < HEADER_LEN)
    return 0;
  w->buf[4] = (guint8) (w->n_questions >> 8);
  w->buf[5] = (guint8) w->n_questions;
  w->buf[6] = (guint8) (w->n_answers >> 8);
  w->buf[7] = (guint8) w->n_answers;
  w->buf[8] = (guint8) (w->n_authority >> 8);
  w->buf[9] = (guint8) w->n_authority;
  w->buf[10] = (guint8) (w->n_additional >> 8);
  w->buf[11] = (guint8) w->n_additional;
  return w->len;
}
