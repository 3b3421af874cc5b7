package io.volery.server.tree;

import java.util.List;
import java.util.Objects;

/** One access control entry: permission bits ({@link Perms}) granted to an {@link Id}. */
public record Acl(int perms, Id id) {
    public static final List<Acl> OPEN = List.of(new Acl(Perms.ALL, Id.ANYONE));
    public static final List<Acl> READ_ONLY = List.of(new Acl(Perms.READ, Id.ANYONE));
    public static final List<Acl> CREATOR_ALL = List.of(new Acl(Perms.ALL, Id.AUTH_IDS));

    public Acl {
        Objects.requireNonNull(id, "id");
    }
}
