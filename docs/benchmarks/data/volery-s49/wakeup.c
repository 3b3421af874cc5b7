#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <stdint.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static double cpu(){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int a,b; int N=20000;
void* pong(void*x){uint64_t v;for(int i=0;i<N;i++){read(a,&v,8);v=1;write(b,&v,8);}return 0;}
int main(){int n=200000;double t0=now(),c0=cpu();for(int i=0;i<n;i++)syscall(SYS_getppid);double t1=now(),c1=cpu();
printf("getppid: %.2f us wall, %.2f us cpu\n",(t1-t0)/n*1e6,(c1-c0)/n*1e6);
a=eventfd(0,0);b=eventfd(0,0);pthread_t th;pthread_create(&th,0,pong,0);uint64_t v;t0=now();c0=cpu();
for(int i=0;i<N;i++){v=1;write(a,&v,8);read(b,&v,8);}t1=now();c1=cpu();pthread_join(th,0);
printf("eventfd ping-pong (2 wakeups, 4 syscalls): %.2f us wall, %.2f us cpu per round\n",(t1-t0)/N*1e6,(c1-c0)/N*1e6);}
