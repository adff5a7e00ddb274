/* qf-text.c — text that is safe to show, print and paste (src/engine, library qf-text); see
 * qf-text.h. Nothing here allocates more than the text it is given or calls out. */
#include "config.h"

#include <string.h>

#include "qf-text.h"

/* ---- names for a terminal ----------------------------------------------------------------- */

char *
qf_text_clean (const char *text,
               gssize      len)
{
  g_autofree char *valid = g_utf8_make_valid (text, len);
  GString *out = g_string_sized_new (strlen (valid));

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_iscntrl (c) || g_unichar_type (c) == G_UNICODE_FORMAT)
        g_string_append_unichar (out, 0xFFFD);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
  return g_string_free (out, FALSE);
}

/* ---- shell words -------------------------------------------------------------------------- */

static gboolean
plain_byte (guchar c)
{
  return g_ascii_isalnum (c) || (c != '\0' && strchr ("-_.:/+@,", c) != NULL);
}

/* Length of the valid, printable UTF-8 character at p (a byte of 0x80 or more), or 0 when it
 * is not one: a C1 control, an invalid or truncated sequence. */
static gsize
printable_utf8 (const char *p)
{
  gunichar c = g_utf8_get_char_validated (p, -1);

  if (c == (gunichar) -1 || c == (gunichar) -2 || g_unichar_iscntrl (c))
    return 0;
  return g_utf8_next_char (p) - p;
}

/* $'…': quotes and backslashes escaped, control characters and the bytes of anything that is
 * not printable UTF-8 written as escapes, printable UTF-8 kept as it is. */
static char *
ansi_c_quote (const char *word)
{
  GString *out = g_string_new ("$'");

  for (const char *p = word; *p != '\0';)
    {
      guchar c = (guchar) *p;
      gsize n;

      if (c == '\'' || c == '\\')
        g_string_append_printf (out, "\\%c", c);
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c == '\r')
        g_string_append (out, "\\r");
      else if (c == 0x1b)
        g_string_append (out, "\\E");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", c);
      else if (c >= 0x80 && (n = printable_utf8 (p)) > 0)
        {
          g_string_append_len (out, p, n);
          p += n;
          continue;
        }
      else if (c >= 0x80)
        g_string_append_printf (out, "\\x%02x", c);
      else
        g_string_append_c (out, (char) c);
      p++;
    }
  g_string_append_c (out, '\'');
  return g_string_free (out, FALSE);
}

char *
qf_text_shell_word (const char *word)
{
  gboolean plain = TRUE;

  g_return_val_if_fail (word != NULL, NULL);
  for (const char *p = word; *p != '\0';)
    {
      guchar c = (guchar) *p;
      gsize n;

      if (c < 0x20 || c == 0x7f)
        return ansi_c_quote (word);
      if (c >= 0x80)
        {
          if ((n = printable_utf8 (p)) == 0)
            return ansi_c_quote (word);
          plain = FALSE;
          p += n;
          continue;
        }
      if (!plain_byte (c))
        plain = FALSE;
      p++;
    }
  if (plain && *word != '\0')
    return g_strdup (word);
  return g_shell_quote (word);   /* '…', with ' written as '\'' */
}

/* ---- printf conversions ------------------------------------------------------------------- */

/* More arguments than any message has; a format that numbers one beyond is refused. */
#define MAX_ARGS 32

/* What an argument is, as far as reading it from the va_list goes: its kind and its size. */
enum { K_INT = 1, K_UINT, K_CHAR, K_DOUBLE, K_STRING, K_POINTER, K_WCHAR, K_WSTRING };
enum { S_INT = 0, S_LONG, S_LLONG, S_INTMAX, S_SIZE, S_PTRDIFF, S_LDOUBLE };

typedef struct
{
  guint  n_args;
  guint8 type[MAX_ARGS];   /* kind << 4 | size; 0: not (yet) used */
  int    positional;       /* -1 unknown, 0 sequential, 1 %N$ */
} Spec;

static gboolean
spec_add (Spec  *spec,
          guint  index,    /* 0: the next one in sequence */
          guint8 type)
{
  int positional = index > 0;

  if (spec->positional >= 0 && spec->positional != positional)
    return FALSE;   /* %1$s and %s mixed: undefined */
  spec->positional = positional;
  if (index == 0)
    index = spec->n_args + 1;
  if (index > MAX_ARGS)
    return FALSE;
  if (spec->type[index - 1] != 0 && spec->type[index - 1] != type)
    return FALSE;   /* one argument read as two types */
  spec->type[index - 1] = type;
  spec->n_args = MAX (spec->n_args, index);
  return TRUE;
}

/* "N$" at *p: N (1…), past the '$'; 0 and p unchanged when there is none. */
static guint
read_position (const char **p)
{
  const char *q = *p;
  guint n = 0;

  while (g_ascii_isdigit (*q) && n <= MAX_ARGS)
    n = n * 10 + (guint) (*q++ - '0');
  if (q == *p || *q != '$' || n == 0)
    return 0;
  *p = q + 1;
  return n;
}

/* A width or precision: digits, or '*' with its own argument (an int). */
static gboolean
read_star_or_digits (const char **p,
                     Spec        *spec)
{
  if (**p == '*')
    {
      guint index;

      (*p)++;
      index = read_position (p);
      return spec_add (spec, index, K_INT << 4 | S_INT);
    }
  while (g_ascii_isdigit (**p))
    (*p)++;
  return TRUE;
}

static int
read_size (const char **p)
{
  const char *q = *p;
  int size = S_INT;

  switch (*q)
    {
    case 'h': q += q[1] == 'h' ? 2 : 1; break;                    /* promoted to int */
    case 'l': size = q[1] == 'l' ? S_LLONG : S_LONG; q += q[1] == 'l' ? 2 : 1; break;
    case 'q': case 'L': size = S_LLONG; q++; break;               /* L: long double on e f g a */
    case 'j': size = S_INTMAX; q++; break;
    case 'z': case 'Z': size = S_SIZE; q++; break;
    case 't': size = S_PTRDIFF; q++; break;
    default: break;
    }
  *p = q;
  return size;
}

/* The argument type conversion c reads with size, 0 for none (%m), -1 for a conversion that is
 * refused (%n writes through its argument; anything unknown). */
static int
conversion_type (char c,
                 int  size,
                 char length)
{
  switch (c)
    {
    case 'd': case 'i': return K_INT << 4 | size;
    case 'o': case 'u': case 'x': case 'X': return K_UINT << 4 | size;
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
      return K_DOUBLE << 4 | (length == 'L' ? S_LDOUBLE : S_INT);
    case 'c': return size == S_LONG ? K_WCHAR << 4 : K_CHAR << 4;
    case 'C': return K_WCHAR << 4;
    case 's': return size == S_LONG ? K_WSTRING << 4 : K_STRING << 4;
    case 'S': return K_WSTRING << 4;
    case 'p': return K_POINTER << 4;
    case 'm': return 0;
    default: return -1;
    }
}

/* Whether each flag in flags (the characters between '%' and the width) may go with conversion
 * c, as GCC's -Wformat has it: "% o" or "%#d" is refused there, so a message that holds one
 * never reaches printf in Qualify (it would not compile) and is not a format. */
static gboolean
flags_fit (const char *flags,
           gsize       n_flags,
           char        c)
{
  for (gsize i = 0; i < n_flags; i++)
    {
      const char *allowed;

      switch (flags[i])
        {
        case '+': case ' ': allowed = "dieEfFgGaA"; break;
        case '#': allowed = "oxXeEfFgGaA"; break;
        case '0': allowed = "diouxXeEfFgGaA"; break;
        case '\'': case 'I': allowed = "diufFgG"; break;
        default: allowed = NULL; break;   /* '-': any */
        }
      if (allowed != NULL && (c == '\0' || strchr (allowed, c) == NULL))
        return FALSE;
    }
  return TRUE;
}

/* One conversion after its '%' at *p; FALSE when it is not a valid one. */
static gboolean
read_conversion (const char **p,
                 Spec        *spec)
{
  const char *q = *p;
  guint index = read_position (&q);
  const char *flags = q;
  gsize n_flags;
  char length;
  int size, type;

  while (*q != '\0' && strchr ("-+ #0'I", *q) != NULL)
    q++;
  n_flags = (gsize) (q - flags);
  if (!read_star_or_digits (&q, spec))
    return FALSE;
  if (*q == '.')
    {
      q++;
      if (!read_star_or_digits (&q, spec))
        return FALSE;
    }
  length = *q;
  size = read_size (&q);
  type = conversion_type (*q, size, length);
  if (type < 0 || !flags_fit (flags, n_flags, *q))
    return FALSE;
  q++;
  *p = q;
  if (type == 0)
    return TRUE;
  return spec_add (spec, index, (guint8) type);
}

/* The arguments format reads; FALSE when it is not a valid format (or uses %n). */
static gboolean
spec_parse (const char *format,
            Spec       *spec)
{
  memset (spec, 0, sizeof *spec);
  spec->positional = -1;
  for (const char *p = format; (p = strchr (p, '%')) != NULL;)
    {
      p++;
      if (*p == '%')
        {
          p++;
          continue;
        }
      if (!read_conversion (&p, spec))
        return FALSE;
    }
  for (guint i = 0; i < spec->n_args; i++)
    if (spec->type[i] == 0)
      return FALSE;   /* %2$s without %1$: the gap's type is unknown */
  return TRUE;
}

gboolean
qf_text_format_compatible (const char *original,
                           const char *translation,
                           gboolean    plural)
{
  Spec want, have;

  g_return_val_if_fail (original != NULL && translation != NULL, FALSE);
  if (!spec_parse (original, &want))
    return TRUE;
  if (!spec_parse (translation, &have))
    return FALSE;
  if (plural ? have.n_args > want.n_args : have.n_args != want.n_args)
    return FALSE;
  return memcmp (want.type, have.type, have.n_args) == 0;
}
