package io.eyrie.core.internal;

import io.eyrie.core.PRObject;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;

/**
 * Intercepts the methods of PRObject subclasses: while a replica executes a command, a call on an
 * object owned by another partition first waits for that partition's value of it for this command.
 * Excluded: {@code @LocalMethodCall} methods, and the methods PRObject itself declares (getId,
 * getDiff, updateFromDiff), which Eyrie calls to move values around.
 *
 * <p>Woven at compile time (aspectj-maven-plugin with eyrie-core as an aspect library) or at load
 * time ({@code -javaagent:aspectjweaver.jar}; META-INF/aop.xml names this aspect).
 */
@Aspect
public class RemoteAccessAspect {

    @Around("execution(!static * io.eyrie.core.PRObject+.*(..))"
            + " && !execution(* io.eyrie.core.PRObject.*(..))"
            + " && !@annotation(io.eyrie.core.LocalMethodCall)"
            + " && !within(io.eyrie.core.internal..*)"
            + " && this(target)")
    public Object aroundObjectMethod(ProceedingJoinPoint call, PRObject target) throws Throwable {
        CurrentExecution.Access access = CurrentExecution.get();
        if (access != null) {
            access.beforeCall(target);
        }
        return call.proceed();
    }
}
