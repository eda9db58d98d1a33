/*
 * caches: where common toolchains keep their caches beneath home, and
 * whether a confined command may write there under a policy, so that
 * `sandbox status` can say which --grant (or variable) a build needs.
 *
 * Each tool's place is found as the tool finds it, from the environment
 * or its default: npm (npm_config_cache, ~/.npm), pip (PIP_CACHE_DIR,
 * $XDG_CACHE_HOME/pip, ~/.cache/pip), cargo (CARGO_HOME, ~/.cargo), go's
 * build cache (GOCACHE, $XDG_CACHE_HOME/go-build, ~/.cache/go-build), go's
 * modules (GOMODCACHE, the first GOPATH entry, ~/go), gradle
 * (GRADLE_USER_HOME, ~/.gradle) and maven (~/.m2). A relative value is
 * taken as the tool would not: it is named, never writable.
 *
 * Writable means: the sandbox mode is off, or the path (canonical, a
 * missing tail kept) lies beneath a writable root of the mode: the
 * workspace, the temp dir, the state dir or a grant (roots.h), or a grant
 * exec will create (policy.h: grants_new). Protected paths are not
 * considered: no cache lives in one.
 *
 * Strings only, no allocation kept: caches_list fills a caller's array.
 */
#ifndef ARCTURN_CACHES_H
#define ARCTURN_CACHES_H

#include <limits.h>
#include <stddef.h>

#include "policy/policy.h"

#define CACHES_N	7	/* entries caches_list fills */

struct cache {
	const char	*tool;		/* "npm", "go build", ... */
	const char	*var;		/* the variable that placed it, or NULL */
	char		 path[PATH_MAX]; /* canonical, or as given (relative) */
	const char	*via;		/* why it is writable ("workspace",
					   "temp dir", "state dir", "grant",
					   "new grant", "sandbox off"), or
					   NULL: it is not */
};

/* Fill out[0..CACHES_N-1] for p; returns the count (CACHES_N). */
size_t	caches_list(const struct policy *p, struct cache *out);

#endif
