package io.volery.server.clients;

/**
 * Curator's recipes against a Volery partitioned by {@code hash}: a recipe's parent and its children
 * (lock and queue entries, latch participants) land in different partitions.
 */
class CuratorRecipesHashTest extends CuratorRecipesTest {
}
