package io.volery.server.clients;

/**
 * {@link CuratorMoreRecipesTest}'s recipes against a Volery partitioned by {@code hash}: a recipe's
 * parent and its children (lock, lease and queue entries, members, instances) land in different partitions.
 */
class CuratorMoreRecipesHashTest extends CuratorMoreRecipesTest {
}
