package io.volery.server.tree;

/**
 * ZooKeeper's path rules: absolute, no empty, "." or ".." components, no trailing slash, and none of
 * the characters it refuses (NUL, controls, U+D800..U+F8FF which includes every surrogate and so
 * everything outside the Basic Multilingual Plane, and U+FFF0..U+FFFF).
 */
public final class PathRules {

    private PathRules() {
    }

    /** Why {@code path} is not a valid znode path, or null when it is. */
    public static String problem(String path) {
        if (path == null) {
            return "path must not be null";
        }
        if (path.isEmpty()) {
            return "path length must be > 0";
        }
        if (path.charAt(0) != '/') {
            return "path must start with / character";
        }
        if (path.length() == 1) {
            return null;
        }
        if (path.charAt(path.length() - 1) == '/') {
            return "path must not end with / character";
        }
        for (int i = 1; i < path.length(); i++) {
            char c = path.charAt(i);
            char previous = path.charAt(i - 1);
            if (c == 0) {
                return "null character not allowed @" + i;
            }
            if (c == '/' && previous == '/') {
                return "empty node name specified @" + i;
            }
            boolean componentEnds = i + 1 == path.length() || path.charAt(i + 1) == '/';
            if (c == '.' && previous == '.' && path.charAt(i - 2) == '/' && componentEnds) {
                return "relative paths not allowed @" + i;
            }
            if (c == '.' && previous == '/' && componentEnds) {
                return "relative paths not allowed @" + i;
            }
            if (c > 0 && c <= 0x1f || c >= 0x7f && c <= 0x9f || c >= 0xd800 && c <= 0xf8ff || c >= 0xfff0) {
                return "invalid character @" + i;
            }
        }
        return null;
    }

    public static boolean isValid(String path) {
        return problem(path) == null;
    }

    /** The parent's path ("/" for top-level nodes); assumes a valid path other than "/". */
    public static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash == 0 ? "/" : path.substring(0, slash);
    }

    /** The last component of a valid path other than "/". */
    public static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    static String child(String parent, String name) {
        return parent.equals("/") ? "/" + name : parent + "/" + name;
    }
}
