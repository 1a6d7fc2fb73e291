// SPDX-License-Identifier: MIT
/* Loads profiles and event scripts by content, with one-line errors. */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gmprof/profile.h"
#include "gmprof/script.h"

void gmp_input__perror(const char *path, const char *what, int err)
{
	fprintf(stderr, "gmprof: %s '%s': %s\n", what, path, strerror(err < 0 ? -err : err));
}

void gmp_output__perror(const char *path, int err)
{
	if (err == -EEXIST)
		fprintf(stderr, "gmprof: refusing to overwrite '%s' (use --force)\n", path);
	else
		gmp_input__perror(path, "cannot create", err);
}

void gmp_output__write_error(const char *path, int err)
{
	if (strcmp(path, "-") == 0)
		fprintf(stderr, "gmprof: cannot write to standard output: %s\n", strerror(err < 0 ? -err : err));
	else
		gmp_input__perror(path, "cannot write", err);
}

static const char *shown(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

static int slurp(int fd, char **buf, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	if (!b)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			char *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int err = -errno;
			free(b);
			return err;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*buf = b;
	*len = n;
	return 0;
}

static int profile_error(const char *path, int err)
{
	switch (err) {
	case -ENODATA:
		fprintf(stderr, "gmprof: profile '%s' is cut off inside its header: it holds no data\n",
			path);
		break;
	case -EPROTONOSUPPORT:
		fprintf(stderr, "gmprof: profile '%s' has an unsupported format version (this gmprof reads version %d)\n",
			path, GMP_PROFILE_VERSION_MAJOR);
		break;
	default:
		gmp_input__perror(path, "cannot read profile", err);
	}
	return -1;
}

static int script_error(const char *path, int err, const struct gmp_script_error *se)
{
	if (err == -EINVAL || se->msg[0])
		fprintf(stderr, "gmprof: %s:%u: %s\n", path, se->line, se->msg);
	else
		gmp_input__perror(path, "cannot read event script", err);
	return -1;
}

static int check_profile(const char *path, const struct gmp_trace *t, int salvage)
{
	if (t->damaged && !salvage) {
		fprintf(stderr, "gmprof: profile '%s' is damaged at byte %" PRIu64 " (%s); %zu events before it are intact: use --salvage to analyze them\n",
			path, t->bytes_read, t->damage, t->nev);
		return -1;
	}
	if (t->damaged)
		fprintf(stderr, "gmprof: warning: profile '%s' is damaged at byte %" PRIu64 " (%s); analyzing the %zu events before it\n",
			path, t->bytes_read, t->damage, t->nev);
	else if (t->truncated)
		fprintf(stderr, "gmprof: warning: profile '%s' is incomplete: it ends inside a record after %" PRIu64 " of %" PRIu64 " bytes; analyzing the %zu events before it\n",
			path, t->bytes_read, t->bytes_total, t->nev);
	else if (!t->ended)
		fprintf(stderr, "gmprof: warning: profile '%s' is incomplete: the program did not reach its end (it crashed or was killed); analyzing its %zu events\n",
			path, t->nev);
	/* Alloc mode records none; a capture range leaves launches unmonitored on purpose. */
	if (t->unharvested && !gmp_input__alloc_mode(t) && !gmp_trace__meta(t, "capture"))
		fprintf(stderr, "gmprof: warning: %" PRIu64 " kernel launches in '%s' have no recorded access sets; each counts as a use of every object live when it was issued\n",
			t->unharvested, path);
	if (t->untouched)
		fprintf(stderr, "gmprof: warning: %" PRIu64 " intra-mode kernel launches in '%s' have no recorded touches\n",
			t->untouched, path);
	const char *heap_lost = gmp_trace__meta(t, "device_heap_lost"); /* the collector's count */
	if (heap_lost)
		fprintf(stderr, "gmprof: warning: %s malloc()/free() calls inside kernels in '%s' were not recorded (more in "
			"a launch than GMPROF_HEAP_RECORDS): a device-heap object may be reported leaked or live longer "
			"where its free was lost\n", heap_lost, path);
	struct gmp_tmaps tm;
	if (!gmp_tmaps__of(t, &tm))
		return 0;
	if (tm.nodes)
		fprintf(stderr, "gmprof: warning: %" PRIu64 " kernel node launch%s of CUDA graphs in '%s' ran while the program "
			"had tensor maps: the collector does not read graph nodes' parameters, so what they read through "
			"tensor maps is not seen, and findings on those objects may be wrong\n",
			tm.nodes, tm.nodes == 1 ? "" : "es", path);
	if (tm.forgotten)
		fprintf(stderr, "gmprof: warning: the program in '%s' encoded more tensor maps than the collector keeps: "
			"it dropped the %" PRIu64 " oldest, so reads through them are not seen, and findings on those "
			"objects may be wrong\n", path, tm.forgotten);
	return 0;
}

/*
 * A file of no bytes is no run: a profile starts with its header, written
 * when the collector starts, and a script of a program that did nothing
 * still says {"op":"end"}.  Taking it as an empty script would pass every
 * gate on a profile that a failed copy or upload left empty.
 */
static int empty_input(const char *path)
{
	fprintf(stderr, "gmprof: '%s' is empty (0 bytes): neither a profile nor an event script\n",
		path);
	return -1;
}

/* Starts as a profile does, up to its magic's length (a file cut inside its magic is a profile's to refuse). */
static int magic_start(const void *p, size_t n)
{
	return n > 0 && memcmp(p, GMP_PROFILE_MAGIC, n < GMP_PROFILE_MAGIC_LEN ? n : GMP_PROFILE_MAGIC_LEN) == 0;
}

static int load_mem(const char *path, const char *buf, size_t len, int salvage,
		    struct gmp_input *in)
{
	int err;
	if (!len)
		return empty_input(path);
	if (magic_start(buf, len)) { /* a profile, or one cut inside its magic */
		in->is_profile = 1;
		err = gmp_profile__read_mem(buf, len, &in->trace);
		if (err)
			return profile_error(path, err);
		return check_profile(path, in->trace, salvage);
	}
	struct gmp_script_error se;
	err = gmp_script__read_mem(buf, len, &in->trace, &se);
	return err ? script_error(path, err, &se) : 0;
}

/* Text or binary?  A script is text: reject binaries that are no profile. */
static int looks_binary(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] == 0)
			return 1;
	return 0;
}

int gmp_input__load(const char *path, int salvage, struct gmp_input *in)
{
	memset(in, 0, sizeof(*in));
	in->path = path;
	const char *name = shown(path);
	int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		gmp_input__perror(name, "cannot open", errno);
		return -1;
	}
	struct stat st;
	int rc = -1;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "gmprof: '%s' is a directory, not a profile or event script\n", name);
		goto out;
	}
	unsigned char head[512];
	ssize_t n = 0;
	if (fd != STDIN_FILENO && S_ISREG(st.st_mode)) {
		n = pread(fd, head, sizeof(head), 0);
		if (n < 0) {
			gmp_input__perror(name, "cannot read", errno);
			goto out;
		}
		if (n == 0) {
			rc = empty_input(name);
			goto out;
		}
		if (gmp_profile__is_profile(head, (size_t)n)) {
			if (lseek(fd, 0, SEEK_SET) != 0) {
				gmp_input__perror(name, "cannot read", errno);
				goto out;
			}
			in->is_profile = 1;
			int err = gmp_profile__read_fd(fd, &in->trace);
			rc = err ? profile_error(name, err) : check_profile(name, in->trace, salvage);
			goto out;
		}
		if (looks_binary(head, (size_t)n) && !magic_start(head, (size_t)n)) {
			fprintf(stderr, "gmprof: '%s' is neither a gmprof profile nor an event script\n",
				name);
			goto out;
		}
		FILE *fp = fdopen(fd, "r");
		if (!fp) {
			gmp_input__perror(name, "cannot read", errno);
			goto out;
		}
		fd = -1;
		if (magic_start(head, (size_t)n)) {
			/* A profile cut inside its magic: let the profile reader say so. */
			char *buf = NULL;
			size_t len = 0;
			int err = slurp(fileno(fp), &buf, &len);
			fclose(fp);
			if (err) {
				gmp_input__perror(name, "cannot read", err);
				return -1;
			}
			rc = load_mem(name, buf, len, salvage, in);
			free(buf);
			return rc;
		}
		struct gmp_script_error se;
		int err = gmp_script__read_file(fp, &in->trace, &se);
		fclose(fp);
		return err ? script_error(name, err, &se) : 0;
	}
	char *buf = NULL;
	size_t len = 0;
	int err = slurp(fd, &buf, &len);
	if (err) {
		gmp_input__perror(name, "cannot read", err);
		goto out;
	}
	rc = load_mem(name, buf, len, salvage, in);
	free(buf);
out:
	if (fd >= 0 && fd != STDIN_FILENO)
		close(fd);
	if (rc) {
		gmp_trace__free(in->trace);
		in->trace = NULL;
	}
	return rc;
}

void gmp_input__release(struct gmp_input *in)
{
	gmp_trace__free(in->trace);
	in->trace = NULL;
}

uint64_t gmp_input__launches(const struct gmp_trace *t)
{
	uint64_t n = 0;
	for (size_t i = 0; i < t->nev; i++)
		n += t->ev[i].op == GMP_OP_KERNEL;
	return n;
}

int gmp_input__alloc_mode(const struct gmp_trace *t)
{
	const char *mode = gmp_trace__meta(t, "mode");
	return mode && !strcmp(mode, "alloc");
}

int gmp_tmaps__of(const struct gmp_trace *t, struct gmp_tmaps *m)
{
	const char *v = gmp_trace__meta(t, "tensor_maps");
	m->forgotten = 0; /* said only where some were (and not before 2026-11-29) */
	return v && sscanf(v, "encoded=%" SCNu64 " launches=%" SCNu64 " graph_nodes=%" SCNu64 " forgotten=%" SCNu64,
			   &m->encoded, &m->launches, &m->nodes, &m->forgotten) >= 3;
}

uint64_t gmp_input__unmonitored(const struct gmp_trace *t, uint32_t mask, uint64_t *untouched)
{
	const uint32_t intra = 1u << GMP_PAT_OVERALLOCATION | 1u << GMP_PAT_NON_UNIFORM_ACCESS_FREQUENCY |
			       1u << GMP_PAT_STRUCTURED_ACCESS;
	mask &= ~GMP_PAT_WITHOUT_ACCESSES;
	*untouched = 0;
	if (!mask || gmp_input__alloc_mode(t) || gmp_trace__meta(t, "capture"))
		return 0;
	*untouched = mask & intra ? t->untouched : 0;
	return t->unharvested;
}

int gmp_input__findable(const char *path, const struct gmp_trace *t, uint32_t mask, const char *option)
{
	uint32_t lost = gmp_patterns__need_accesses(mask);
	if (!gmp_input__alloc_mode(t) || !lost)
		return 0;
	fprintf(stderr, "gmprof: '%s' was recorded in alloc mode, without the kernels' accesses: %s %s cannot be "
		"found in it (record it in object mode)\n", shown(path), option,
		gmp_pattern__name((unsigned)__builtin_ctz(lost)));
	return -1;
}

int gmp_input__detect(const struct gmp_input *in, const struct gmp_detect_opts *o,
		      struct gmp_result **out)
{
	struct gmp_detect_error de;
	struct gmp_detect_opts mine = *o;
	if (gmp_input__findable(in->path, in->trace, o->patterns, "--patterns"))
		return -1;
	mine.accesses_unknown |= gmp_input__alloc_mode(in->trace);
	int err = gmp_detect(in->trace, &mine, out, &de);
	if (!err)
		return 0;
	const char *name = shown(in->path);
	if (err == -ENOMEM)
		fprintf(stderr, "gmprof: out of memory while analyzing '%s'\n", name);
	else if (de.line)
		fprintf(stderr, "gmprof: %s:%u: %s\n", name, de.line, de.msg);
	else if (de.ev != GMP_NO_EVENT)
		fprintf(stderr, "gmprof: %s: event #%u: %s\n", name, de.ev, de.msg);
	else
		fprintf(stderr, "gmprof: %s: %s\n", name, de.msg);
	return -1;
}
