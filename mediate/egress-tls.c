/*
 * mediate/egress-tls.c — kb_tls_sni (egress.h): the server name a TLS
 * ClientHello asks for, read from the first bytes a client sends into a
 * CONNECT tunnel, so that the proxy can hold it to the CONNECT host.
 * Pure: no I/O, no allocation, no global state.
 *
 * The hello is read as one handshake stream across as many handshake
 * records as carry it (RFC 8446 5.1 lets a client split it anywhere),
 * byte by byte through a reader that never looks past buf[len). Every
 * length must nest exactly in the one around it: a server's parser and
 * ours must not disagree on where a field ends, or the name we check
 * need not be the name the server serves.
 *
 * *need on KB_TLS_MORE is where the current record ends (a server reads
 * a record whole before it looks inside), or where the hello ends when
 * that is sooner; never more than the bytes a client must send anyway.
 * A hello cut into 1-byte records costs 6 bytes a byte: a caller that
 * buffers up to *need holds at most 6 * (KB_TLS_MAX + 4) bytes, and may
 * well refuse sooner.
 */
#include <stdint.h>
#include <string.h>

#include "egress.h"

#define REC_HDR 5
/* RFC 8446 5.1: 2^14 bytes of plaintext. Taken up to TLS 1.2's limit
 * for a protected record, 2^14 + 2048, so as not to refuse a lenient
 * stack; a record past it no server would read. */
#define REC_MAX (16384 + 2048)

#define EXT_SERVER_NAME 0x0000
#define EXT_ECH         0xfe0d /* draft-ietf-tls-esni */

/*
 * A reader of the handshake stream. Every read checks it stays within
 * `lim`, the end (in handshake bytes) of the field it is in; a read
 * that cannot be served from buf[0..len) fails with KB_TLS_MORE and how
 * many bytes would serve it.
 */
struct rd {
	const unsigned char *buf;
	size_t len;
	size_t off;       /* the next handshake byte, in buf */
	size_t end;       /* the end of the current record, in buf */
	size_t hs;        /* handshake bytes read */
	size_t hello_end; /* in handshake bytes; 0 while unknown */
	enum kb_tls res;  /* why a read failed */
	size_t need;
};

/* the reading ends with res (a verdict, or MORE): false, to unwind */
static bool
stop(struct rd *r, enum kb_tls res)
{
	r->res = res;
	return false;
}

/*
 * Out of bytes inside a record: the record's end is needed (it was sent
 * whole, and a TLS server would wait for it too), unless the hello is
 * known to end before it.
 */
static bool
more(struct rd *r)
{
	r->need = r->end;
	if (r->hello_end != 0 && r->hello_end - r->hs <= r->end - r->off)
		r->need = r->off + (r->hello_end - r->hs);
	return stop(r, KB_TLS_MORE);
}

/* the header of the record at r->end */
static bool
next_record(struct rd *r)
{
	const unsigned char *h = r->buf + r->end;
	size_t avail = r->len - r->end, n;

	/* judged as far as it has come: "GET /" is no TLS after 1 byte.
	 * An alert or change_cipher_spec before the hello is complete is
	 * not a hello either. */
	if (avail >= 1 && h[0] != 0x16)
		return stop(r, KB_TLS_NOT_HELLO);
	if (avail >= 2 && h[1] != 3)
		return stop(r, KB_TLS_NOT_HELLO);
	if (avail < REC_HDR) {
		r->need = r->end + REC_HDR;
		return stop(r, KB_TLS_MORE);
	}
	n = (size_t)h[3] << 8 | h[4];
	/* RFC 8446 5.1: no empty handshake fragment */
	if (n == 0 || n > REC_MAX)
		return stop(r, KB_TLS_BAD);
	r->off = r->end + REC_HDR;
	r->end = r->off + n;
	return true;
}

/* n handshake bytes into dst (NULL: skipped), within lim */
static bool
take(struct rd *r, size_t lim, unsigned char *dst, size_t n)
{
	if (n > lim - r->hs)
		return stop(r, KB_TLS_BAD);
	while (n > 0) {
		size_t have, k;

		if (r->off == r->end && !next_record(r))
			return false;
		have = r->end < r->len ? r->end : r->len;
		if (r->off >= have)
			return more(r);
		k = have - r->off < n ? have - r->off : n;
		if (dst != NULL) {
			memcpy(dst, r->buf + r->off, k);
			dst += k;
		}
		r->off += k;
		r->hs += k;
		n -= k;
	}
	return true;
}

static bool
u8(struct rd *r, size_t lim, size_t *v)
{
	unsigned char b;

	if (!take(r, lim, &b, 1))
		return false;
	*v = b;
	return true;
}

static bool
u16(struct rd *r, size_t lim, size_t *v)
{
	unsigned char b[2];

	if (!take(r, lim, b, 2))
		return false;
	*v = (size_t)b[0] << 8 | b[1];
	return true;
}

/*
 * The server_name extension's data, up to lim (RFC 6066 3): a list
 * whose length is the rest of the extension, of name_type(1) and a
 * name<1..2^16-1>; exactly one host_name, 1..snisz-1 bytes, no NUL.
 * Entries of other types are skipped (none is defined; they have the
 * same shape in every stack that parses them).
 */
static bool
server_name(struct rd *r, size_t lim, char *sni, size_t snisz)
{
	size_t list, type, n, names = 0;

	if (!u16(r, lim, &list))
		return false;
	if (list != lim - r->hs)
		return stop(r, KB_TLS_BAD);
	while (r->hs < lim) {
		if (!u8(r, lim, &type) || !u16(r, lim, &n))
			return false;
		if (type != 0) {
			if (!take(r, lim, NULL, n))
				return false;
			continue;
		}
		if (++names > 1 || n == 0 || n >= snisz)
			return stop(r, KB_TLS_BAD);
		if (!take(r, lim, (unsigned char *)sni, n))
			return false;
		if (memchr(sni, '\0', n) != NULL)
			return stop(r, KB_TLS_BAD);
		sni[n] = '\0';
	}
	if (names == 0)
		return stop(r, KB_TLS_BAD);
	return true;
}

/* the ClientHello's body (RFC 8446 4.1.2), up to r->hello_end */
static bool
hello_body(struct rd *r, char *sni, size_t snisz)
{
	const size_t lim = r->hello_end;
	/* the extension types seen: RFC 8446 4.2 forbids a repeat, and a
	 * second server_name could be the one another parser reads */
	uint8_t seen[65536 / 8] = {0};
	bool ech = false, has_sni = false;
	size_t n, type;

	/* legacy_version, random */
	if (!take(r, lim, NULL, 2 + 32))
		return false;
	if (!u8(r, lim, &n))
		return false;
	if (n > 32)
		return stop(r, KB_TLS_BAD);
	if (!take(r, lim, NULL, n) || !u16(r, lim, &n))
		return false;
	if (n == 0 || n % 2 != 0)
		return stop(r, KB_TLS_BAD);
	if (!take(r, lim, NULL, n) || !u8(r, lim, &n))
		return false;
	if (n == 0)
		return stop(r, KB_TLS_BAD);
	if (!take(r, lim, NULL, n))
		return false;
	/* no extensions at all (before TLS 1.2 they were optional) */
	if (r->hs == lim)
		return stop(r, KB_TLS_NO_SNI);
	if (!u16(r, lim, &n))
		return false;
	if (n != lim - r->hs)
		return stop(r, KB_TLS_BAD);
	while (r->hs < lim) {
		if (!u16(r, lim, &type) || !u16(r, lim, &n))
			return false;
		if (n > lim - r->hs)
			return stop(r, KB_TLS_BAD);
		if (seen[type / 8] & (1U << (type % 8)))
			return stop(r, KB_TLS_BAD);
		seen[type / 8] |= (uint8_t)(1U << (type % 8));
		if (type == EXT_SERVER_NAME) {
			if (!server_name(r, r->hs + n, sni, snisz))
				return false;
			has_sni = true;
		} else {
			if (!take(r, lim, NULL, n))
				return false;
			ech = ech || type == EXT_ECH;
		}
	}
	/* with ECH the outer SNI is the client-facing server's, not the
	 * name the connection is for */
	if (ech)
		return stop(r, KB_TLS_ECH);
	return stop(r, has_sni ? KB_TLS_SNI : KB_TLS_NO_SNI);
}

enum kb_tls
kb_tls_sni(
    const unsigned char *buf, size_t len, char *sni, size_t snisz, size_t *need)
{
	struct rd r = {.buf = buf, .len = len};
	unsigned char h[4];

	if (snisz > 0)
		sni[0] = '\0';
	if (!take(&r, SIZE_MAX, h, 1))
		goto out;
	if (h[0] != 1) { /* client_hello */
		r.res = KB_TLS_NOT_HELLO;
		goto out;
	}
	if (!take(&r, SIZE_MAX, h + 1, 3))
		goto out;
	r.hello_end = (size_t)h[1] << 16 | (size_t)h[2] << 8 | h[3];
	if (r.hello_end > KB_TLS_MAX) {
		r.res = KB_TLS_BAD;
		goto out;
	}
	r.hello_end += 4;
	hello_body(&r, sni, snisz);
out:
	if (r.res != KB_TLS_SNI && snisz > 0)
		sni[0] = '\0';
	if (need != NULL)
		*need = r.res == KB_TLS_MORE ? r.need : 0;
	return r.res;
}
