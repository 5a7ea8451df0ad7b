# G5 — plain Makefile.
#   make            build build/g5 and build/libg5.a (installs missing packages)
#   make run        the default study: results and plots under results/
#   make test       every test binary (GTest, --tap), ends with "N passed, N failed"
#   make gpu        the CUDA executor (gpu/, needs nvcc)
#   make validate   docs/validation.md's errors from the committed measurements
#   make calibrate-h200  the calibrated H200 platform from the same
#   V=1             show full commands
#   WERROR=1        warnings are errors (CI)
#   SANITIZE=address,undefined   sanitizer lane
#   MPI=0           build without MPI even where it is installed
# Objects rebuild when flags change (build/.flags).

BUILD   ?= build
CC      ?= cc
PKGS    := glib-2.0 yaml-0.1 hdf5-serial gsl
V       ?= 0
Q       := $(if $(filter 1,$(V)),,@)

OPT     ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN    += -Werror
endif
ifneq ($(SANITIZE),)
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

# pkg-config is expanded lazily (recursive '='), inside recipes only, so that
# the deps step has installed the packages before it is asked.
# MPI (Open MPI from scripts/deps.sh), where pkg-config finds it: `g5 run`
# under mpirun spreads an experiment's points over the job (docs/scale.md).
# MPI=0 builds without it.
MPI_PKG    = $(if $(filter 0,$(MPI)),,$(shell pkg-config --exists mpi-c 2>/dev/null && echo mpi-c))
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) $(MPI_PKG)) $(if $(MPI_PKG),-DG5_MPI)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) $(MPI_PKG))
ALL_CFLAGS = -std=gnu11 $(OPT) $(WARN) $(SANFLAGS) -I. $(PKG_CFLAGS) $(CFLAGS)
ALL_LDLIBS = $(SANFLAGS) $(LDFLAGS) $(PKG_LIBS) -lm -lpthread $(LDLIBS)

LIB_SRC  := $(shell find sim -name '*.c' ! -name main.c | LC_ALL=C sort)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
G5_SRC   := sim/main.c $(sort $(wildcard bench/*.c))
G5_OBJ   := $(G5_SRC:%.c=$(BUILD)/obj/%.o)
TEST_SRC := $(sort $(wildcard tests/*/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_SUPPORT_SRC := $(sort $(wildcard tests/support/*.c))
TEST_SUPPORT_OBJ := $(TEST_SUPPORT_SRC:%.c=$(BUILD)/obj/%.o)

.PHONY: all deps run test check clean gpu experiments bench valgrind validate calibrate-h200 FORCE
# keep objects of tests (intermediate in the pattern chain) between builds
.SECONDARY:
all: $(BUILD)/g5

deps:
	$(Q)sh scripts/deps.sh

# Rewritten only when the flags differ, so a flag change rebuilds everything.
$(BUILD)/.flags: FORCE | deps
	@mkdir -p $(BUILD)
	@echo '$(CC) $(ALL_CFLAGS) $(ALL_LDLIBS)' > $(BUILD)/.flags.new
	@cmp -s $(BUILD)/.flags.new $@ || mv $(BUILD)/.flags.new $@
	@rm -f $(BUILD)/.flags.new

$(BUILD)/obj/%.o: %.c $(BUILD)/.flags | deps
	@mkdir -p $(dir $@)
	$(if $(filter 1,$(V)),,@echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# The commit g5 reports (--version, results metadata): written only when it
# changes, so that only sim/cli.c rebuilds.
$(BUILD)/gen/g5_version.h: FORCE
	@mkdir -p $(dir $@)
	@c=$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown); \
	if [ "$$c" != unknown ] && [ -n "$$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then c="$$c-dirty"; fi; \
	echo "#define G5_COMMIT \"$$c\"" > $@.new; \
	cmp -s $@.new $@ || mv $@.new $@; rm -f $@.new

$(BUILD)/obj/sim/cli.o: $(BUILD)/gen/g5_version.h
$(BUILD)/obj/sim/cli.o: ALL_CFLAGS += -I$(BUILD)/gen -DG5_HAVE_VERSION_H

$(BUILD)/libg5.a: $(LIB_OBJ)
	$(if $(filter 1,$(V)),,@echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/g5: $(G5_OBJ) $(BUILD)/libg5.a
	$(if $(filter 1,$(V)),,@echo "  LD      $@")
	$(Q)$(CC) -o $@ $(G5_OBJ) $(BUILD)/libg5.a $(ALL_LDLIBS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(TEST_SUPPORT_OBJ) $(BUILD)/libg5.a
	@mkdir -p $(dir $@)
	$(if $(filter 1,$(V)),,@echo "  LD      $@")
	$(Q)$(CC) -o $@ $< $(TEST_SUPPORT_OBJ) $(BUILD)/libg5.a $(ALL_LDLIBS)

# The CUDA executor is built by `make test` wherever nvcc is (it runs only on
# GPU hosts; its host backend is tested by tests/gpu on every machine).
NVCC_FOUND = $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))

test check: $(BUILD)/g5 $(TEST_BIN)
	$(Q)if [ -n "$(NVCC_FOUND)" ]; then $(MAKE) --no-print-directory -C gpu; \
	else echo "  (no nvcc: the CUDA executor in gpu/ is not built)"; fi
	$(Q)sh scripts/check-layers.sh
	$(Q)G5=$(BUILD)/g5 sh tests/run.sh $(TEST_BIN)

run: $(BUILD)/g5
	$(Q)sh scripts/default-run.sh $(BUILD)/g5

experiments: $(BUILD)/g5
	$(Q)G5=$(BUILD)/g5 sh experiments/run_all.sh

bench: $(BUILD)/g5
	$(Q)$(BUILD)/g5 bench all

# docs/validation.md's numbers from the committed measurements (no GPU)
validate: $(BUILD)/g5
	$(Q)G5=$(BUILD)/g5 sh scripts/validate.sh

# configs/platforms/h200x2-nvlink.yaml from the committed measurements
calibrate-h200: $(BUILD)/g5
	$(Q)G5=$(BUILD)/g5 sh scripts/calibrate-h200.sh

valgrind: $(BUILD)/g5 $(TEST_BIN)
	$(Q)G5=$(BUILD)/g5 VALGRIND=1 sh tests/run.sh $(TEST_BIN)

gpu:
	$(Q)$(MAKE) -C gpu

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
-include fuzz.mk
