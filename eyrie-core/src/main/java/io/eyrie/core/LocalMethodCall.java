package io.eyrie.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method of a {@link PRObject} subclass that needs no up-to-date copy of the object (for
 * example a method that overwrites the whole state, or one that reads only immutable fields). Calls
 * to it are not intercepted: they never wait for a remote value and send nothing.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface LocalMethodCall {
}
