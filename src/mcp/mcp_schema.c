/*
 * The MCP server's one tool table (mcp.h): each tool's name, the function
 * that calls it, its description, inputSchema and outputSchema, as JSON
 * text parsed when tools/list is asked, and its annotations. This is the
 * one place the tools' JSON shapes are written down, and the one place
 * tools/call finds a tool (mcp_tools_call).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lib/mem.h"
#include "mcp/mcp.h"
#include "mcp/mcp_args.h"
#include "mcp/mcp_nav.h"
#include "mcp/mcp_tools.h"

/* A tool's annotations (spec 2025-11-25: hints a client may show). */
#define RO	0x1	/* readOnlyHint: changes nothing */
#define DESTR	0x2	/* destructiveHint: may replace or remove what was */
#define IDEM	0x4	/* idempotentHint: twice is as once */
#define OPEN	0x8	/* openWorldHint: reaches beyond the workspace */

struct tool {
	const char	*name;
	mcp_tool_fn	*call;		/* what it does (mcp_tools.h) */
	const char	*title;
	int		 apply;		/* listed with --allow-apply only */
	int		 hints;
	const char	*json;		/* the rest of the Tool object */
};

#define PATHS_IN \
	"\"paths\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}," \
	"\"description\":\"workspace-relative paths (or absolute ones inside" \
	" the workspace); none: all\"}"

/*
 * What a refused write_file or edit_file (isError) holds instead of its
 * result: the paths the policy refused, its code and the way out. A
 * client such as the TypeScript SDK checks an isError result's
 * structuredContent against outputSchema too, hence the anyOf.
 */
#define DENIED \
	"\"deniedPaths\":{\"type\":\"array\",\"items\":{\"type\":" \
	"\"string\"},\"description\":\"refused by the policy (isError)\"}," \
	"\"code\":{\"type\":\"string\",\"enum\":[\"outside_roots\"," \
	"\"protected\"]},\"hint\":{\"type\":\"string\"}"

/* The turn a command's writes landed in. */
#define TURN_OUT_RUN \
	"\"turn\":{\"type\":[\"integer\",\"null\"],\"description\":" \
	"\"the checkpoint turn of its writes (undo takes it back); null: " \
	"none written, captured under dry run, or not checkpointed\"}"

/* A folder to look in, and what an entry is. */
#define PATH_DIR \
	"\"path\":{\"type\":\"string\",\"default\":\".\"," \
	"\"description\":\"a folder: workspace-relative, or absolute " \
	"inside the workspace; default . (the workspace)\"}"
#define KIND \
	"{\"type\":\"string\",\"enum\":[\"file\",\"directory\"," \
	"\"symlink\",\"other\"]}"

/* The turn a write landed in: what `arcturn undo` takes back. */
#define TURN_OUT \
	"\"turn\":{\"type\":[\"integer\",\"null\"],\"description\":" \
	"\"the checkpoint turn of this write (arcturn undo, arcturn " \
	"checkpoints); null when captured under dry run\"},"

static const struct tool tools[] = {
	{ "read_file", mcp_files_call, "Read file", 0, RO | IDEM,
	  "\"description\":\"Read a text file (UTF-8) as arcturn read does: "
	  "under dry run, as the pending session sees it. At most 64 KiB "
	  "(65536 bytes) of whole lines a call: a longer file is cut, "
	  "truncated is true and the text ends with a line saying which "
	  "offset reads on.\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"path\":"
	  "{\"type\":\"string\",\"description\":\"workspace-relative, or "
	  "absolute inside the workspace\"},"
	  "\"offset\":{\"type\":\"integer\",\"minimum\":1,\"default\":1,"
	  "\"description\":\"the first line to return (1: the first)\"},"
	  "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
	  "\"how many lines at most (default: as many as fit 64 KiB)\"}},"
	  "\"required\":[\"path\"],\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\"},\"content\":{\"type\":\"string\","
	  "\"description\":\"the lines returned\"},"
	  "\"bytes\":{\"type\":\"integer\",\"description\":\"the whole "
	  "file's size\"},\"offset\":{\"type\":\"integer\"},"
	  "\"lines\":{\"type\":\"integer\",\"description\":\"lines "
	  "returned\"},\"totalLines\":{\"type\":\"integer\"},"
	  "\"truncated\":{\"type\":\"boolean\",\"description\":\"cut by "
	  "the 64 KiB budget: call again with offset + lines\"}},"
	  "\"required\":[\"path\",\"content\",\"bytes\",\"offset\","
	  "\"lines\",\"totalLines\",\"truncated\"]}" },
	{ "write_file", mcp_files_call, "Write file", 0, DESTR | IDEM,
	  "\"description\":\"Create or replace a file with content, as "
	  "arcturn write does: refused outside the writable roots and on "
	  "protected paths (isError, naming the rule and the way out; "
	  "structuredContent holds deniedPaths, code and hint); under dry "
	  "run captured in the session.\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"path\":"
	  "{\"type\":\"string\",\"description\":\"workspace-relative, or "
	  "absolute inside the writable roots; no NUL or control "
	  "characters\"},\"content\":{\"type\":\"string\","
	  "\"description\":\"the whole new content, written as given "
	  "(NULs included)\"}},"
	  "\"required\":[\"path\",\"content\"],"
	  "\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\"},\"bytes\":{\"type\":\"integer\"},"
	  "\"captured\":{\"type\":\"boolean\",\"description\":\"written "
	  "into the dry-run session, not the workspace\"}," TURN_OUT
	  DENIED "},\"anyOf\":[{\"required\":[\"path\",\"bytes\","
	  "\"captured\"]},{\"required\":[\"deniedPaths\"]}]}" },
	{ "edit_file", mcp_files_call, "Edit file", 0, DESTR,
	  "\"description\":\"Replace text in a file: each edit's oldText "
	  "must occur exactly once (edits apply in order). Returns a "
	  "git-style diff; dryRun previews without writing. Same policy as "
	  "write_file.\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"path\":"
	  "{\"type\":\"string\",\"description\":\"workspace-relative, or "
	  "absolute inside the writable roots\"},\"edits\":{\"type\":"
	  "\"array\",\"minItems\":1,\"description\":\"applied in order, "
	  "each to the text the last one left\","
	  "\"items\":{\"type\":\"object\",\"properties\":{\"oldText\":"
	  "{\"type\":\"string\",\"minLength\":1,\"description\":\"text "
	  "that occurs exactly once (add context to make it unique)\"},"
	  "\"newText\":{\"type\":\"string\",\"description\":\"what "
	  "replaces it\"}},\"required\":[\"oldText\",\"newText\"]}},"
	  "\"dryRun\":{\"type\":\"boolean\",\"default\":false,"
	  "\"description\":\"return the diff without writing\"}},"
	  "\"required\":[\"path\",\"edits\"],\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\"},\"bytes\":{\"type\":\"integer\"},"
	  "\"captured\":{\"type\":\"boolean\"},\"diff\":{\"type\":\"string\"},"
	  TURN_OUT
	  DENIED "},\"anyOf\":[{\"required\":[\"path\",\"bytes\","
	  "\"captured\",\"diff\"]},{\"required\":[\"deniedPaths\"]}]}" },
	{ "run_command", mcp_cmds_call, "Run command (confined)", 0, DESTR | OPEN,
	  "\"description\":\"Run a command (an argv array, no shell) under "
	  "arcturn exec with the configured policy; under dry run its writes "
	  "are captured. Of stdout and stderr the first and last 16 KiB each "
	  "are kept, with a line saying what was left out between them "
	  "(stdoutBytes: the full size); exitCode is arcturn exec's status "
	  "(128+N: killed by signal N).\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"command\":{\"type\":\"array\",\"minItems\":1,\"items\":"
	  "{\"type\":\"string\",\"minLength\":1},\"description\":\"the "
	  "program and its arguments, no shell (use [\\\"sh\\\", "
	  "\\\"-c\\\", \\\"...\\\"] for one)\"},"
	  "\"cwd\":{\"type\":\"string\",\"description\":\"relative to the "
	  "workspace, or absolute inside it; default: the workspace\"},"
	  "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":"
	  "86400000,\"default\":120000,\"description\":\"milliseconds "
	  "until the command gets SIGTERM, and SIGKILL a second later "
	  "(timedOut); default "
	  "120000 (2 minutes), at most 86400000 (a day)\"},"
	  "\"stdin\":{\"type\":\"string\",\"description\":\"the "
	  "command's standard input, passed whole (NULs included); "
	  "default: none\"}},"
	  "\"required\":[\"command\"],\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"exitCode\":{\"type\":[\"integer\",\"null\"]},"
	  "\"signal\":{\"type\":[\"integer\",\"null\"],\"description\":"
	  "\"the signal that ended arcturn exec\"},"
	  "\"timedOut\":{\"type\":\"boolean\"},"
	  "\"stdout\":{\"type\":\"string\"},\"stdoutTruncated\":"
	  "{\"type\":\"boolean\"},\"stdoutBytes\":{\"type\":\"integer\"},"
	  "\"stderr\":{\"type\":\"string\"},\"stderrTruncated\":"
	  "{\"type\":\"boolean\"},\"stderrBytes\":{\"type\":\"integer\"},"
	  "\"outputCap\":{\"type\":\"integer\"},"
	  "\"confined\":{\"type\":\"boolean\"},\"backend\":{\"type\":\"string\"},"
	  "\"captured\":{\"type\":\"boolean\"},"
	  "\"checkpointed\":{\"type\":\"boolean\",\"description\":"
	  "\"its writes were recorded as a turn (exec --checkpoint)\"},"
	  TURN_OUT_RUN "},"
	  "\"required\":[\"checkpointed\",\"turn\",\"exitCode\",\"signal\",\"timedOut\",\"stdout\","
	  "\"stdoutTruncated\",\"stdoutBytes\",\"stderr\",\"stderrTruncated\","
	  "\"stderrBytes\",\"outputCap\",\"confined\",\"backend\","
	  "\"captured\"]}" },
	{ "review_changes", mcp_cmds_call, "Review pending changes", 0, RO | IDEM,
	  "\"description\":\"The pending dry-run changes as arcturn diff "
	  "shows them: the diff (each file's first 200 body lines unless "
	  "full), the stat, the files and the digest that apply --expect "
	  "takes (null for a part of the changes, or none). The diff text "
	  "is at most 64 KiB: a longer one is cut at a line (truncated); "
	  "files lists every change, and paths asks for some of them.\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{" PATHS_IN ","
	  "\"full\":{\"type\":\"boolean\",\"default\":false,"
	  "\"description\":\"every body line of every file (default: the "
	  "first 200 of each)\"}},"
	  "\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"diff\":{\"type\":\"string\"},\"stat\":{\"type\":\"string\"},"
	  "\"digest\":{\"type\":[\"string\",\"null\"]},"
	  "\"files\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
	  "\"properties\":{\"path\":{\"type\":\"string\"},\"status\":"
	  "{\"type\":\"string\",\"enum\":[\"A\",\"M\",\"D\",\"T\"]}},"
	  "\"required\":[\"path\",\"status\"]}},"
	  "\"count\":{\"type\":\"integer\"},\"truncated\":{\"type\":\"boolean\"}},"
	  "\"required\":[\"diff\",\"stat\",\"digest\",\"files\",\"count\","
	  "\"truncated\"]}" },
	{ "discard_changes", mcp_cmds_call, "Discard pending changes", 0, DESTR | IDEM,
	  "\"description\":\"Throw away every pending change of the dry-run "
	  "session (arcturn discard). Discarding some paths only is not "
	  "supported yet: paths are refused.\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{" PATHS_IN "},"
	  "\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"discarded\":{\"type\":\"boolean\"},\"message\":{\"type\":\"string\"}},"
	  "\"required\":[\"discarded\",\"message\"]}" },
	{ "sandbox_status", mcp_cmds_call, "Sandbox status", 0, RO | IDEM,
	  "\"description\":\"Which backend arcturn exec uses here and which "
	  "guarantees hold (arcturn sandbox status --json).\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{},"
	  "\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"backend\":{\"type\":\"string\"},\"guarantees\":{\"type\":"
	  "\"object\"}},\"required\":[\"backend\"]}" },
	{ "apply_changes", mcp_cmds_call, "Apply reviewed changes", 1, DESTR,
	  "\"description\":\"Apply the pending changes to the workspace "
	  "(arcturn apply --yes --expect DIGEST): expect is review_changes' "
	  "digest, so that only what was reviewed lands.\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"expect\":"
	  "{\"type\":\"string\",\"description\":\"the digest "
	  "review_changes returned for what was reviewed\"}," PATHS_IN "},"
	  "\"required\":[\"expect\"],"
	  "\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"applied\":{\"type\":\"boolean\"},\"message\":{\"type\":\"string\"}},"
	  "\"required\":[\"applied\",\"message\"]}" },
	{ "list_directory", mcp_nav_call, "List directory", 0, RO | IDEM,
	  "\"description\":\"The entries of a folder of the workspace, one "
	  "a line as [DIR] name, [FILE] name or [LINK] name (symlinks are not "
	  "followed). Under dry run, as the pending session sees it. Within "
	  "the output budget: a longer listing is cut (truncated) and total "
	  "says how many there are.\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{" PATH_DIR "},"
	  "\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\"},\"entries\":{\"type\":\"array\","
	  "\"items\":{\"type\":\"object\",\"properties\":{\"name\":"
	  "{\"type\":\"string\"},\"type\":" KIND "},\"required\":[\"name\","
	  "\"type\"]}},\"total\":{\"type\":\"integer\",\"description\":"
	  "\"entries in the folder, shown or not\"},\"truncated\":{\"type\":"
	  "\"boolean\"}},\"required\":[\"path\",\"entries\",\"total\","
	  "\"truncated\"]}" },
	{ "directory_tree", mcp_nav_call, "Directory tree", 0, RO | IDEM,
	  "\"description\":\"A folder's tree as JSON: [{name, type, "
	  "children}], children for folders above maxDepth; symlinks are not "
	  "followed. Under dry run, as the pending session sees it. Cut at "
	  "the output budget (truncated): ask for a subfolder or a smaller "
	  "maxDepth.\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{" PATH_DIR ","
	  "\"maxDepth\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":64,"
	  "\"default\":8,\"description\":\"how many levels of folders to "
	  "show (1: the folder's own entries)\"}},"
	  "\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\"},\"tree\":{\"type\":\"array\","
	  "\"items\":{\"type\":\"object\"}},\"entries\":{\"type\":"
	  "\"integer\"},\"maxDepth\":{\"type\":\"integer\"},\"truncated\":"
	  "{\"type\":\"boolean\"}},\"required\":[\"path\",\"tree\","
	  "\"entries\",\"maxDepth\",\"truncated\"]}" },
	{ "search_files", mcp_find_call, "Search files by name", 0, RO | IDEM,
	  "\"description\":\"The paths beneath a folder whose name matches "
	  "a glob (*.c), or whose path beneath the folder matches one with a "
	  "slash (src/**/*.h); symlinks are not followed. Under dry run, as "
	  "the pending session sees it. Within the output budget: total "
	  "counts every match.\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{" PATH_DIR ","
	  "\"pattern\":{\"type\":\"string\",\"minLength\":1,\"description\":"
	  "\"a glob: * ? [..]; with a / it matches the path beneath the "
	  "folder, where * spans folders and **/ also matches none\"},"
	  "\"excludePatterns\":{\"type\":\"array\",\"items\":{\"type\":"
	  "\"string\"},\"description\":\"globs of entries to skip, folders "
	  "with all beneath them (node_modules, .git)\"}},"
	  "\"required\":[\"pattern\"],\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\"},\"pattern\":{\"type\":\"string\"},"
	  "\"matches\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
	  "\"description\":\"workspace-relative paths\"},\"total\":{\"type\":"
	  "\"integer\"},\"truncated\":{\"type\":\"boolean\"}},\"required\":["
	  "\"path\",\"pattern\",\"matches\",\"total\",\"truncated\"]}" },
	{ "search_content", mcp_find_call, "Search file contents", 0, RO | IDEM,
	  "\"description\":\"The lines of the text files beneath a folder "
	  "that match a regular expression (POSIX extended), as path:line: "
	  "text, at most maxResults and within the output budget (a line is "
	  "cut at 300 bytes). Files with a NUL byte are skipped. Under dry "
	  "run, as the pending session sees it.\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{" PATH_DIR ","
	  "\"pattern\":{\"type\":\"string\",\"minLength\":1,\"description\":"
	  "\"a POSIX extended regular expression (. [] * + ? | () ^ $; "
	  "no {m,n} nor back-references), matched against each line\"},\"include\":{\"type\":\"string\",\"description\":\"a glob "
	  "the files searched must match, as search_files takes it (*.py)\"},"
	  "\"ignoreCase\":{\"type\":\"boolean\",\"default\":false,"
	  "\"description\":\"match letters in either case\"},"
	  "\"maxResults\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":"
	  "1000,\"default\":100,\"description\":\"stop after this many "
	  "matching lines\"}},"
	  "\"required\":[\"pattern\"],\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\"},\"pattern\":{\"type\":\"string\"},"
	  "\"matches\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
	  "\"properties\":{\"path\":{\"type\":\"string\"},\"line\":{\"type\":"
	  "\"integer\"},\"text\":{\"type\":\"string\"}},\"required\":["
	  "\"path\",\"line\",\"text\"]}},\"filesSearched\":{\"type\":"
	  "\"integer\"},\"truncated\":{\"type\":\"boolean\"}},\"required\":["
	  "\"path\",\"pattern\",\"matches\",\"filesSearched\",\"truncated\"]}" },
	{ "get_file_info", mcp_nav_call, "File info", 0, RO | IDEM,
	  "\"description\":\"A path's type, size, times (UTC) and "
	  "permission bits, not following a final symlink. Under dry run, as "
	  "the pending session sees it.\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"path\":"
	  "{\"type\":\"string\",\"description\":\"workspace-relative, or "
	  "absolute inside the workspace; . is the workspace\"}},"
	  "\"required\":[\"path\"],\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\"},\"type\":" KIND ","
	  "\"size\":{\"type\":\"integer\"},\"modified\":{\"type\":\"string\"},"
	  "\"accessed\":{\"type\":\"string\"},\"changed\":{\"type\":"
	  "\"string\",\"description\":\"the inode's change time\"},"
	  "\"isDirectory\":{\"type\":\"boolean\"},\"isFile\":{\"type\":"
	  "\"boolean\"},\"permissions\":{\"type\":\"string\",\"description\":"
	  "\"octal, as 644\"}},\"required\":[\"path\",\"type\",\"size\","
	  "\"modified\",\"accessed\",\"changed\",\"isDirectory\",\"isFile\","
	  "\"permissions\"]}" },
	{ "read_multiple_files", mcp_find_call, "Read several files", 0, RO | IDEM,
	  "\"description\":\"Read several text files at once: each whole "
	  "while the output budget lasts, then cut (truncated; read_file "
	  "with offset reads on). A file that cannot be read has error "
	  "instead of content; the others are still read.\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"paths\":"
	  "{\"type\":\"array\",\"minItems\":1,\"items\":{\"type\":\"string\"},"
	  "\"description\":\"workspace-relative paths, or absolute ones "
	  "inside the workspace\"}},\"required\":[\"paths\"],"
	  "\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"files\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
	  "\"properties\":{\"path\":{\"type\":\"string\"},\"content\":"
	  "{\"type\":\"string\"},\"bytes\":{\"type\":\"integer\"},"
	  "\"truncated\":{\"type\":\"boolean\"},\"error\":{\"type\":"
	  "\"string\"}},\"required\":[\"path\"]}}},\"required\":[\"files\"]}" },
	{ "begin_turn", mcp_turns_call, "Begin a turn", 0, 0,
	  "\"description\":\"Start a turn (arcturn turn): the writes that "
	  "follow, of write_file, edit_file and run_command, join it, so "
	  "that undo takes them back as one, until the next begin_turn. "
	  "arcturn checkpoints shows it with its label. Not under dry run "
	  "(there review_changes and discard_changes do it).\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"label\":"
	  "{\"type\":\"string\",\"description\":\"what the turn is for, as "
	  "a human will see it in arcturn checkpoints\"}},"
	  "\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"turn\":{\"type\":\"integer\"},\"label\":{\"type\":[\"string\","
	  "\"null\"]}},\"required\":[\"turn\",\"label\"]}" },
	{ "list_checkpoints", mcp_turns_call, "List checkpoints", 0, RO | IDEM,
	  "\"description\":\"The turns of the workspace, newest first, with "
	  "their labels and the paths each changed (arcturn checkpoints): at "
	  "most 20 turns and 20 paths of each (pathCount, total).\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{},"
	  "\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"workspace\":{\"type\":\"string\"},\"turns\":{\"type\":\"array\","
	  "\"items\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":"
	  "\"integer\"},\"time\":{\"type\":\"string\"},\"label\":{\"type\":["
	  "\"string\",\"null\"]},\"paths\":{\"type\":\"array\",\"items\":"
	  "{\"type\":\"object\"}},\"pathCount\":{\"type\":\"integer\"}},"
	  "\"required\":[\"id\",\"time\",\"label\",\"paths\",\"pathCount\"]}},"
	  "\"total\":{\"type\":\"integer\"},\"truncated\":{\"type\":"
	  "\"boolean\"}},\"required\":[\"workspace\",\"turns\",\"total\","
	  "\"truncated\"]}" },
	{ "undo", mcp_turns_call, "Undo turns", 0, DESTR,
	  "\"description\":\"Put back what a turn changed: without turn, the "
	  "last one (arcturn undo; twice: redo); with turn, that one and "
	  "every turn since (arcturn rewind TURN). A path changed since the "
	  "turn left it is a conflict, not restored (isError, conflicts) "
	  "unless force. The undo is itself a turn.\","
	  "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"turn\":"
	  "{\"type\":\"integer\",\"minimum\":1,\"description\":\"the turn "
	  "to go back to before (list_checkpoints, or a write's turn); "
	  "default: the last\"},\"force\":{\"type\":\"boolean\","
	  "\"default\":false,\"description\":\"restore conflicting paths "
	  "too, over what changed them since\"}},"
	  "\"additionalProperties\":false},"
	  "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	  "\"turn\":{\"type\":[\"integer\",\"null\"],\"description\":\"the "
	  "turn the undo is recorded as\"},\"since\":{\"type\":\"integer\"},"
	  "\"restored\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
	  "\"properties\":{\"path\":{\"type\":\"string\"},\"action\":{"
	  "\"type\":\"string\"}},\"required\":[\"path\",\"action\"]}},"
	  "\"conflicts\":{\"type\":\"array\",\"items\":{\"type\":"
	  "\"object\"}}},\"required\":[\"turn\",\"since\",\"restored\","
	  "\"conflicts\"]}" },
};

#define NTOOLS	(sizeof tools / sizeof tools[0])

/*
 * A title for each input property that has none, from its name:
 * timeoutMs is "Timeout ms", excludePatterns "Exclude patterns".
 */
static int
titles(cJSON *t)
{
	cJSON *props, *p;
	char buf[64];
	size_t i, n;
	const char *k;

	props = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(t, "inputSchema"), "properties");
	cJSON_ArrayForEach(p, props) {
		if (cJSON_GetObjectItemCaseSensitive(p, "title") != NULL)
			continue;
		for (k = p->string, i = n = 0; k[i] != '\0' &&
		    n + 2 < sizeof buf; i++) {
			if (k[i] >= 'A' && k[i] <= 'Z') {
				buf[n++] = ' ';
				buf[n++] = (char)(k[i] - 'A' + 'a');
			} else
				buf[n++] = i == 0 && k[i] >= 'a' &&
				    k[i] <= 'z' ? (char)(k[i] - 'a' + 'A') : k[i];
		}
		buf[n] = '\0';
		if (cJSON_AddStringToObject(p, "title", buf) == NULL)
			return -1;
	}
	return 0;
}

static int
annotate(cJSON *t, const struct tool *tl)
{
	cJSON *a;

	return titles(t) == 0 && cJSON_AddStringToObject(t, "title", tl->title) != NULL &&
	    (a = cJSON_AddObjectToObject(t, "annotations")) != NULL &&
	    cJSON_AddStringToObject(a, "title", tl->title) != NULL &&
	    cJSON_AddBoolToObject(a, "readOnlyHint", tl->hints & RO) != NULL &&
	    cJSON_AddBoolToObject(a, "destructiveHint", (tl->hints & DESTR) !=
	    0) != NULL &&
	    cJSON_AddBoolToObject(a, "idempotentHint", (tl->hints & IDEM) !=
	    0) != NULL &&
	    cJSON_AddBoolToObject(a, "openWorldHint", (tl->hints & OPEN) !=
	    0) != NULL ? 0 : -1;
}

cJSON *
mcp_tools_list(const struct mcp_server *srv)
{
	char *buf;
	size_t size;
	cJSON *r, *arr, *t;
	size_t i;
	int n;

	if ((r = cJSON_CreateObject()) == NULL ||
	    (arr = cJSON_AddArrayToObject(r, "tools")) == NULL)
		goto fail;
	for (i = 0; i < NTOOLS; i++) {
		if (tools[i].apply && !srv->allow_apply)
			continue;
		size = strlen(tools[i].json) + strlen(tools[i].name) + 16;
		if ((buf = mem_alloc(size)) == NULL)
			goto fail;
		n = snprintf(buf, size, "{\"name\":\"%s\",%s}", tools[i].name,
		    tools[i].json);
		t = n < 0 || (size_t)n >= size ? NULL : cJSON_Parse(buf);
		mem_free(buf);
		if (t == NULL)
			goto fail;
		cJSON_AddItemToArray(arr, t);
		if (annotate(t, &tools[i]) < 0)
			goto fail;
	}
	return r;
fail:
	cJSON_Delete(r);
	return NULL;
}

/* The tool called name that srv lists, or NULL. */
static const struct tool *
listed(const struct mcp_server *srv, const char *name)
{
	size_t i;

	for (i = 0; i < NTOOLS; i++)
		if (strcmp(tools[i].name, name) == 0)
			return !tools[i].apply || srv->allow_apply ? &tools[i] :
			    NULL;
	return NULL;
}

int
mcp_tools_call(const struct mcp_server *srv, const char *name,
    const cJSON *args, cJSON **result, char *msg, size_t msglen)
{
	const struct tool *t;
	cJSON *empty = NULL;
	int rc;

	*result = NULL;
	if ((t = listed(srv, name)) == NULL)
		return mcp_bad(msg, msglen, MCP_EPARAMS, "unknown tool: %.200s%s",
		    name, strcmp(name, "apply_changes") == 0 ? " (arcturn mcp "
		    "lists it with --allow-apply only)" : "");
	/* no workspace (started in /, $HOME, ...): say how to choose one */
	if (srv->dir == NULL && strcmp(name, "sandbox_status") != 0) {
		if ((*result = mcp_fail("arcturn: %s", srv->why)) == NULL)
			return mcp_bad(msg, msglen, MCP_EINTERNAL,
			    "out of memory");
		return 0;
	}
	if (args == NULL && (args = empty = cJSON_CreateObject()) == NULL)
		return mcp_bad(msg, msglen, MCP_EINTERNAL, "out of memory");
	rc = t->call(srv, name, args, result, msg, msglen);
	cJSON_Delete(empty);
	if (rc != MCP_BADARGS)
		return rc;
	if ((*result = mcp_fail("arcturn: %s: %s", name, msg)) == NULL)
		return mcp_bad(msg, msglen, MCP_EINTERNAL, "out of memory");
	return 0;
}

int
mcp_tool_writes(const char *name, const cJSON *args)
{
	size_t i;

	/* edit_file with dryRun: a preview, read only */
	if (strcmp(name, "edit_file") == 0 && cJSON_IsTrue(
	    cJSON_GetObjectItemCaseSensitive(args, "dryRun")))
		return 0;
	for (i = 0; i < NTOOLS; i++)
		if (strcmp(tools[i].name, name) == 0)
			return !(tools[i].hints & RO);
	return 0;
}
