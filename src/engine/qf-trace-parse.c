/* qf-trace-parse.c — the kernel's binary trace, read (src/engine); see qf-trace-parse.h.
 *
 * The page layout follows the kernel's ring buffer (kernel/trace/ring_buffer.c): records of
 * type_len 1…28 carry type_len × 4 bytes of data; type_len 0 keeps the length in the next word
 * (which counts itself); 29 is padding (time delta 0: the rest of the page), 30 extends the time
 * delta by 32 more bits, 31 is an absolute time stamp whose 5 top bits come from the current
 * time. The commit word's bit 31 says records were lost before the page, bit 30 that their count
 * is stored after the data.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qf-i18n.h"
#include "qf-trace-parse.h"

#define MAX_FIELDS      32
#define MAX_FIELD_NAME  32
#define COMMIT_MASK     ((1u << 27) - 1)
#define MISSED_EVENTS   (1ull << 31)
#define MISSED_STORED   (1ull << 30)
#define TS_MSB          (0xf8ull << 56)
#define TYPE_PADDING    29
#define TYPE_EXTEND     30
#define TYPE_STAMP      31
#define MAX_FORMAT_TEXT (64 * 1024)

typedef enum
{
  LOC_PLAIN,
  LOC_DATA,       /* __data_loc: u32, offset (from the record) low 16 bits, length high 16 */
  LOC_REL,        /* __rel_loc: the same, offset from the end of the field */
} FieldLoc;

typedef struct
{
  char    name[MAX_FIELD_NAME];
  guint16 offset;
  guint16 size;
  guint8  is_signed;
  guint8  loc;
} Field;

typedef struct
{
  gboolean present;
  gint     id;
  guint    n_fields;
  Field    fields[MAX_FIELDS];
} EventFormat;

/* The fields each kind is read from, by name; NULL ends a list. */
static const char *const kind_fields[QF_TRACE_N_EVENTS][8] = {
  [QF_TRACE_EV_SWITCH] = { "prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm",
                           "next_pid", "next_prio", NULL },
  [QF_TRACE_EV_WAKING] = { "comm", "pid", "prio", "target_cpu", NULL },
  [QF_TRACE_EV_WAKEUP] = { "comm", "pid", "prio", "target_cpu", NULL },
  [QF_TRACE_EV_IRQ_ENTRY] = { "irq", "name", NULL },
  [QF_TRACE_EV_IRQ_EXIT] = { "irq", NULL },
  [QF_TRACE_EV_SOFTIRQ_ENTRY] = { "vec", NULL },
  [QF_TRACE_EV_SOFTIRQ_EXIT] = { "vec", NULL },
  [QF_TRACE_EV_TIMER_ENTRY] = { "hrtimer", "now", "function", NULL },
  [QF_TRACE_EV_TIMER_EXIT] = { "hrtimer", NULL },
  [QF_TRACE_EV_MARK] = { "buf", NULL },
};

struct QfTraceFormats
{
  EventFormat events[QF_TRACE_N_EVENTS];
  /* per kind, the index in events[kind].fields of each of kind_fields[kind], or -1 */
  gint        field_index[QF_TRACE_N_EVENTS][8];
  Field       common_type;
  Field       common_pid;
  guint16     ts_offset, commit_offset, commit_size, data_offset;
  gsize       page_size;
};

/* "offset:16;" → 16, looked up after key in line; FALSE when absent or not a number. */
static gboolean
line_number (const char *line,
             const char *key,
             guint      *out)
{
  const char *p = strstr (line, key);
  char *end;
  unsigned long v;

  if (p == NULL)
    return FALSE;
  p += strlen (key);
  errno = 0;
  v = strtoul (p, &end, 10);
  if (end == p || errno != 0 || v > G_MAXUINT16)
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

/* "field:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;" → a Field. */
static gboolean
parse_field (const char *line,
             Field      *field)
{
  const char *decl = strstr (line, "field:");
  const char *semi, *end, *start;
  guint offset, size, is_signed = 0;
  gsize len;

  if (decl == NULL)
    return FALSE;
  decl += strlen ("field:");
  semi = strchr (decl, ';');
  if (semi == NULL || !line_number (semi, "offset:", &offset) || !line_number (semi, "size:", &size))
    return FALSE;
  line_number (semi, "signed:", &is_signed);
  /* the name is the last identifier of the declaration, before any [N] */
  end = semi;
  {
    const char *bracket = memchr (decl, '[', (gsize) (semi - decl));
    if (bracket != NULL && g_strstr_len (decl, semi - decl, "__data_loc") == NULL
        && g_strstr_len (decl, semi - decl, "__rel_loc") == NULL)
      end = bracket;
  }
  while (end > decl && g_ascii_isspace (end[-1]))
    end--;
  start = end;
  while (start > decl && (g_ascii_isalnum (start[-1]) || start[-1] == '_'))
    start--;
  len = (gsize) (end - start);
  if (len == 0 || len >= MAX_FIELD_NAME)
    return FALSE;
  memset (field, 0, sizeof *field);
  memcpy (field->name, start, len);
  field->offset = (guint16) offset;
  field->size = (guint16) size;
  field->is_signed = is_signed != 0;
  if (g_strstr_len (decl, semi - decl, "__data_loc") != NULL)
    field->loc = LOC_DATA;
  else if (g_strstr_len (decl, semi - decl, "__rel_loc") != NULL)
    field->loc = LOC_REL;
  return TRUE;
}

static const Field *
find_field (const EventFormat *ev,
            const char        *name)
{
  for (guint i = 0; i < ev->n_fields; i++)
    if (strcmp (ev->fields[i].name, name) == 0)
      return &ev->fields[i];
  return NULL;
}

/* One event's format text: its ID and fields. */
static gboolean
parse_event_format (const char  *text,
                    EventFormat *ev)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean have_id = FALSE;

  memset (ev, 0, sizeof *ev);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      guint id;

      while (g_ascii_isspace (*line))
        line++;
      if (g_str_has_prefix (line, "ID:") && line_number (line, "ID:", &id))
        {
          ev->id = (gint) id;
          have_id = TRUE;
        }
      else if (g_str_has_prefix (line, "field:") && ev->n_fields < MAX_FIELDS)
        {
          if (parse_field (line, &ev->fields[ev->n_fields]))
            ev->n_fields++;
        }
    }
  ev->present = have_id && find_field (ev, "common_type") != NULL
                && find_field (ev, "common_pid") != NULL;
  return ev->present;
}

/* events/header_page: where the time stamp, the commit word and the data lie. */
static gboolean
parse_header_page (QfTraceFormats *f,
                   const char     *text)
{
  g_auto(GStrv) lines = g_strsplit (text != NULL ? text : "", "\n", -1);
  gboolean ts = FALSE, commit = FALSE, data = FALSE;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      Field field;

      if (!parse_field (lines[i], &field))
        continue;
      if (strcmp (field.name, "timestamp") == 0 && field.size == 8)
        {
          f->ts_offset = field.offset;
          ts = TRUE;
        }
      else if (strcmp (field.name, "commit") == 0 && (field.size == 4 || field.size == 8))
        {
          f->commit_offset = field.offset;
          f->commit_size = field.size;
          commit = TRUE;
        }
      else if (strcmp (field.name, "data") == 0)
        {
          f->data_offset = field.offset;
          f->page_size = (gsize) field.offset + field.size;
          data = TRUE;
        }
    }
  return ts && commit && data && f->page_size > f->data_offset && f->page_size <= 1024 * 1024
         && f->ts_offset + 8u <= f->data_offset && f->commit_offset + f->commit_size <= f->data_offset;
}

QfTraceFormats *
qf_trace_formats_new (const char        *header_page,
                      const char *const  formats[QF_TRACE_N_EVENTS],
                      GError           **error)
{
  g_autoptr(QfTraceFormats) f = g_new0 (QfTraceFormats, 1);
  gboolean any = FALSE;

  if (!parse_header_page (f, header_page))
    {
      g_set_error (error, QF_TRACE_ERROR, QF_TRACE_ERROR_FORMAT,
                   _("The kernel’s trace page header (events/header_page) cannot be read"));
      return NULL;
    }
  for (guint k = 0; k < QF_TRACE_N_EVENTS; k++)
    {
      EventFormat *ev = &f->events[k];

      for (guint j = 0; j < G_N_ELEMENTS (f->field_index[k]); j++)
        f->field_index[k][j] = -1;
      if (formats[k] == NULL || !parse_event_format (formats[k], ev))
        continue;
      for (guint j = 0; kind_fields[k][j] != NULL; j++)
        {
          const Field *field = find_field (ev, kind_fields[k][j]);
          f->field_index[k][j] = field != NULL ? (gint) (field - ev->fields) : -1;
        }
      if (!any)
        {
          f->common_type = *find_field (ev, "common_type");
          f->common_pid = *find_field (ev, "common_pid");
          any = TRUE;
        }
    }
  if (!any || f->common_type.size != 2)
    {
      g_set_error (error, QF_TRACE_ERROR, QF_TRACE_ERROR_FORMAT,
                   _("No event format of the kernel’s trace could be read"));
      return NULL;
    }
  return g_steal_pointer (&f);
}

/* The whole text behind fd, read with pread from 0 (at most MAX_FORMAT_TEXT bytes). */
static char *
read_fd_text (int fd)
{
  GString *text;
  char buf[4096];
  off_t offset = 0;

  if (fd < 0)
    return NULL;
  text = g_string_new (NULL);
  while (text->len < MAX_FORMAT_TEXT)
    {
      ssize_t n = pread (fd, buf, sizeof buf, offset);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      g_string_append_len (text, buf, n);
      offset += n;
    }
  return g_string_free (text, FALSE);
}

QfTraceFormats *
qf_trace_formats_read (const QfTraceFds *fds,
                       GError          **error)
{
  g_autofree char *header = NULL;
  char *texts[QF_TRACE_N_EVENTS] = { NULL };
  QfTraceFormats *f;

  g_return_val_if_fail (fds != NULL, NULL);
  header = read_fd_text (fds->header_page_fd);
  for (guint k = 0; k < QF_TRACE_N_EVENTS; k++)
    texts[k] = read_fd_text (fds->format_fd[k]);
  f = qf_trace_formats_new (header, (const char *const *) texts, error);
  for (guint k = 0; k < QF_TRACE_N_EVENTS; k++)
    g_free (texts[k]);
  return f;
}

void
qf_trace_formats_free (QfTraceFormats *formats)
{
  g_free (formats);
}

gsize
qf_trace_formats_page_size (const QfTraceFormats *formats)
{
  g_return_val_if_fail (formats != NULL, 0);
  return formats->page_size;
}

gboolean
qf_trace_formats_has (const QfTraceFormats *formats,
                      QfTraceEventKind      kind)
{
  g_return_val_if_fail (formats != NULL && kind < QF_TRACE_N_EVENTS, FALSE);
  return formats->events[kind].present;
}

/* Reads an integer field of a record; FALSE when it lies outside the record. */
static gboolean
get_int (const guint8 *rec,
         gsize         len,
         const Field  *field,
         gint64       *out)
{
  if (field == NULL || field->loc != LOC_PLAIN || (gsize) field->offset + field->size > len)
    return FALSE;
  switch (field->size)
    {
    case 1:
      *out = field->is_signed ? (gint64) (gint8) rec[field->offset] : rec[field->offset];
      return TRUE;
    case 2:
      {
        guint16 v;
        memcpy (&v, rec + field->offset, 2);
        *out = field->is_signed ? (gint64) (gint16) v : v;
        return TRUE;
      }
    case 4:
      {
        guint32 v;
        memcpy (&v, rec + field->offset, 4);
        *out = field->is_signed ? (gint64) (gint32) v : v;
        return TRUE;
      }
    case 8:
      {
        guint64 v;
        memcpy (&v, rec + field->offset, 8);
        *out = (gint64) v;
        return TRUE;
      }
    default:
      return FALSE;
    }
}

/* Copies a string field (a fixed char array, a __data_loc or __rel_loc string, or a trailing
 * char buf[]) into out, NUL-terminated and cut to out_len - 1. */
static void
get_str (const guint8 *rec,
         gsize         len,
         const Field  *field,
         char         *out,
         gsize         out_len)
{
  gsize start, n;

  out[0] = '\0';
  if (field == NULL || (gsize) field->offset > len)
    return;
  if (field->loc == LOC_PLAIN)
    {
      start = field->offset;
      n = field->size > 0 ? MIN ((gsize) field->size, len - start) : len - start;
    }
  else
    {
      guint32 loc;

      if ((gsize) field->offset + 4 > len)
        return;
      memcpy (&loc, rec + field->offset, 4);
      start = (loc & 0xffff) + (field->loc == LOC_REL ? (gsize) field->offset + field->size : 0);
      n = loc >> 16;
      if (start > len)
        return;
      n = MIN (n, len - start);
    }
  n = MIN (n, out_len - 1);
  memcpy (out, rec + start, n);
  out[n] = '\0';
  out[strnlen (out, n)] = '\0';
}

/* "qualify-spike start=123 latency=45" → the mark; FALSE for any other line. */
static gboolean
parse_mark (const char   *buf,
            QfTraceEvent *ev)
{
  const char *p = buf;
  char *end;
  gint64 start, latency;

  if (!g_str_has_prefix (p, QF_TRACE_MARK_PREFIX " start="))
    return FALSE;
  p += strlen (QF_TRACE_MARK_PREFIX " start=");
  errno = 0;
  start = g_ascii_strtoll (p, &end, 10);
  if (end == p || errno != 0 || !g_str_has_prefix (end, " latency="))
    return FALSE;
  p = end + strlen (" latency=");
  latency = g_ascii_strtoll (p, &end, 10);
  /* a deadline on a monotonic clock and a latency of at most an hour: anything else is not ours
   * (and would overflow the window's end) */
  if (end == p || errno != 0 || start < 0 || start > G_MAXINT64 / 2 || latency < 0
      || latency > G_GINT64_CONSTANT (3600000000000))
    return FALSE;
  ev->mark.start_ns = start;
  ev->mark.latency_ns = latency;
  return TRUE;
}

#define FIELD(f, k, j) \
  ((f)->field_index[k][j] >= 0 ? &(f)->events[k].fields[(f)->field_index[k][j]] : NULL)

static gint32
int_field (const QfTraceFormats *f,
           QfTraceEventKind      kind,
           guint                 j,
           const guint8         *rec,
           gsize                 len,
           gint32                def)
{
  gint64 v;

  return get_int (rec, len, FIELD (f, kind, j), &v) ? (gint32) v : def;
}

/* Fills ev from a record of kind; FALSE to skip it (a foreign trace_marker line). */
static gboolean
decode (const QfTraceFormats *f,
        QfTraceEventKind      kind,
        const guint8         *rec,
        gsize                 len,
        QfTraceEvent         *ev)
{
  gint64 v = 0;

  switch (kind)
    {
    case QF_TRACE_EV_SWITCH:
      get_str (rec, len, FIELD (f, kind, 0), ev->sw.prev_comm, sizeof ev->sw.prev_comm);
      ev->sw.prev_pid = int_field (f, kind, 1, rec, len, -1);
      ev->sw.prev_prio = int_field (f, kind, 2, rec, len, -1);
      ev->sw.prev_state = get_int (rec, len, FIELD (f, kind, 3), &v) ? v : 0;
      get_str (rec, len, FIELD (f, kind, 4), ev->sw.next_comm, sizeof ev->sw.next_comm);
      ev->sw.next_pid = int_field (f, kind, 5, rec, len, -1);
      ev->sw.next_prio = int_field (f, kind, 6, rec, len, -1);
      return TRUE;
    case QF_TRACE_EV_WAKING:
    case QF_TRACE_EV_WAKEUP:
      get_str (rec, len, FIELD (f, kind, 0), ev->wake.comm, sizeof ev->wake.comm);
      ev->wake.pid = int_field (f, kind, 1, rec, len, -1);
      ev->wake.prio = int_field (f, kind, 2, rec, len, -1);
      ev->wake.target_cpu = int_field (f, kind, 3, rec, len, -1);
      return TRUE;
    case QF_TRACE_EV_IRQ_ENTRY:
      ev->irq.irq = int_field (f, kind, 0, rec, len, -1);
      get_str (rec, len, FIELD (f, kind, 1), ev->irq.name, sizeof ev->irq.name);
      return TRUE;
    case QF_TRACE_EV_IRQ_EXIT:
      ev->irq.irq = int_field (f, kind, 0, rec, len, -1);
      return TRUE;
    case QF_TRACE_EV_SOFTIRQ_ENTRY:
    case QF_TRACE_EV_SOFTIRQ_EXIT:
      ev->softirq.vec = (guint32) int_field (f, kind, 0, rec, len, -1);
      return TRUE;
    case QF_TRACE_EV_TIMER_ENTRY:
      ev->timer.hrtimer = get_int (rec, len, FIELD (f, kind, 0), &v) ? (guint64) v : 0;
      ev->timer.now_ns = get_int (rec, len, FIELD (f, kind, 1), &v) ? v : 0;
      ev->timer.function = get_int (rec, len, FIELD (f, kind, 2), &v) ? (guint64) v : 0;
      return TRUE;
    case QF_TRACE_EV_TIMER_EXIT:
      ev->timer.hrtimer = get_int (rec, len, FIELD (f, kind, 0), &v) ? (guint64) v : 0;
      return TRUE;
    case QF_TRACE_EV_MARK:
      {
        char buf[128];
        get_str (rec, len, FIELD (f, kind, 0), buf, sizeof buf);
        return parse_mark (buf, ev);
      }
    default:
      return FALSE;
    }
}

/* One record's data (rec, len) at time ts: emitted when it is of a kind we keep. */
static void
handle_record (const QfTraceFormats *f,
               guint                 cpu,
               gint64                ts,
               const guint8         *rec,
               gsize                 len,
               QfTraceEmitFunc       emit,
               gpointer              user_data)
{
  QfTraceEvent ev;
  gint64 type, pid;

  if (!get_int (rec, len, &f->common_type, &type) || !get_int (rec, len, &f->common_pid, &pid))
    return;
  for (guint k = 0; k < QF_TRACE_N_EVENTS; k++)
    {
      if (!f->events[k].present || f->events[k].id != type)
        continue;
      memset (&ev, 0, sizeof ev);
      ev.ts_ns = ts;
      ev.kind = (guint8) k;
      ev.cpu = (guint16) MIN (cpu, G_MAXUINT16);
      ev.pid = (gint32) pid;
      if (decode (f, k, rec, len, &ev))
        emit (&ev, user_data);
      return;
    }
}

static guint64
read_word (const guint8 *p,
           guint         size)
{
  if (size == 8)
    {
      guint64 v;
      memcpy (&v, p, 8);
      return v;
    }
  else
    {
      guint32 v;
      memcpy (&v, p, 4);
      return v;
    }
}

gboolean
qf_trace_parse_page (const QfTraceFormats *f,
                     guint                 cpu,
                     const guint8         *page,
                     gsize                 len,
                     QfTraceEmitFunc       emit,
                     gpointer              user_data,
                     guint64              *lost)
{
  guint64 commit, ts;
  const guint8 *data;
  gsize size, off = 0;

  g_return_val_if_fail (f != NULL && emit != NULL && lost != NULL, FALSE);
  *lost = 0;
  if (page == NULL || len < f->data_offset || len > f->page_size)
    return FALSE;
  ts = read_word (page + f->ts_offset, 8);
  commit = read_word (page + f->commit_offset, f->commit_size);
  data = page + f->data_offset;
  size = (gsize) (commit & COMMIT_MASK);
  if (size > len - f->data_offset)
    return FALSE;
  if (commit & MISSED_EVENTS)
    {
      *lost = G_MAXUINT64;
      if ((commit & MISSED_STORED) && size + f->commit_size <= len - f->data_offset)
        *lost = read_word (data + size, f->commit_size);
    }

  while (off + 4 <= size)
    {
      guint32 header;
      guint type_len;
      guint64 delta;
      gsize length;

      memcpy (&header, data + off, 4);
      type_len = header & 31;
      delta = header >> 5;
      switch (type_len)
        {
        case TYPE_PADDING:
          if (delta == 0)
            return TRUE;              /* the rest of the page is padding */
          if (off + 8 > size)
            return FALSE;
          {
            guint32 pad;
            memcpy (&pad, data + off + 4, 4);
            if (pad > size - off - 4)
              return FALSE;
            ts += delta;
            off += 4 + (gsize) pad;
          }
          continue;
        case TYPE_EXTEND:
        case TYPE_STAMP:
          if (off + 8 > size)
            return FALSE;
          {
            guint32 ext;
            memcpy (&ext, data + off + 4, 4);
            delta += (guint64) ext << 27;
            ts = type_len == TYPE_STAMP ? (delta | (ts & TS_MSB)) : ts + delta;
            off += 8;
          }
          continue;
        case 0:
          {
            guint32 array0;
            if (off + 8 > size)
              return FALSE;
            memcpy (&array0, data + off + 4, 4);
            if (array0 < 4 || array0 - 4 > size - off - 8)
              return FALSE;
            length = ((gsize) array0 - 4 + 3) & ~(gsize) 3;
            length = MIN (length, size - off - 8);
            ts += delta;
            handle_record (f, cpu, (gint64) ts, data + off + 8, array0 - 4, emit, user_data);
            off += 8 + length;
          }
          continue;
        default:
          length = (gsize) type_len * 4;
          if (length > size - off - 4)
            return FALSE;
          ts += delta;
          handle_record (f, cpu, (gint64) ts, data + off + 4, length, emit, user_data);
          off += 4 + length;
          continue;
        }
    }
  return off == size;
}
