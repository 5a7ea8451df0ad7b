# Fuzzing the loaders with libFuzzer (clang). Included from the Makefile;
# uses its LIB_SRC, BUILD and PKG_CFLAGS.
#   make fuzz                      build $(BUILD)/fuzz/fuzz_{config,schedule,results}
#   make fuzz-run FUZZ_TIME=300    run the config target for FUZZ_TIME seconds; new
#                                  inputs go to $(BUILD)/fuzz/corpus, crashes to
#                                  $(BUILD)/fuzz/
#   make fuzz-run-schedule, fuzz-run-results   the same for schedule files
#                                  (seeds: gpu/schedules) and results files (seeds:
#                                  a `g5 run` of tests/run/tiny.yaml), corpus in
#                                  $(BUILD)/fuzz/corpus-schedule, -results
# Seeds of the config target: every platform, experiment and bad-corpus file
# of the tree. docs/hardening.md says what each target checks and how its
# last runs went. Needs libFuzzer's runtime (Debian: libclang-rt-14-dev, or
# clang's own).
FUZZ_CC     ?= clang
FUZZ_TIME   ?= 60
FUZZ_CFLAGS  = -std=gnu11 -g -O1 -fno-omit-frame-pointer -I. $(PKG_CFLAGS)
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJ    := $(LIB_SRC:%.c=$(BUILD)/fuzz/obj/%.o)

.PHONY: fuzz fuzz-run fuzz-run-schedule fuzz-run-results
fuzz: $(BUILD)/fuzz/fuzz_config $(BUILD)/fuzz/fuzz_schedule $(BUILD)/fuzz/fuzz_results

$(BUILD)/fuzz/obj/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(if $(filter 1,$(V)),,@echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c $< -o $@

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	$(if $(filter 1,$(V)),,@echo "  LD      $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(PKG_LIBS) -lm -lpthread

fuzz-run: $(BUILD)/fuzz/fuzz_config
	@mkdir -p $(BUILD)/fuzz/corpus $(BUILD)/fuzz/seeds
	@cp configs/platforms/*.yaml tests/config/bad/*.yaml tests/config/good/*.yaml \
		experiments/*.yaml tests/run/*.yaml $(BUILD)/fuzz/seeds/ 2>/dev/null || true
	$(BUILD)/fuzz/fuzz_config -max_total_time=$(FUZZ_TIME) -max_len=4096 -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix=$(BUILD)/fuzz/ \
		-dict=tests/fuzz/config.dict $(BUILD)/fuzz/corpus $(BUILD)/fuzz/seeds

fuzz-run-schedule: $(BUILD)/fuzz/fuzz_schedule
	@mkdir -p $(BUILD)/fuzz/corpus-schedule $(BUILD)/fuzz/seeds-schedule
	@cp gpu/schedules/*.g5s $(BUILD)/fuzz/seeds-schedule/
	$(BUILD)/fuzz/fuzz_schedule -max_total_time=$(FUZZ_TIME) -max_len=16384 -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix=$(BUILD)/fuzz/schedule- \
		$(BUILD)/fuzz/corpus-schedule $(BUILD)/fuzz/seeds-schedule

fuzz-run-results: $(BUILD)/fuzz/fuzz_results $(BUILD)/g5
	@mkdir -p $(BUILD)/fuzz/corpus-results $(BUILD)/fuzz/seeds-results
	$(BUILD)/g5 run tests/run/tiny.yaml -o $(BUILD)/fuzz/seeds-results --no-plots -q
	$(BUILD)/fuzz/fuzz_results -max_total_time=$(FUZZ_TIME) -max_len=131072 -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix=$(BUILD)/fuzz/results- \
		$(BUILD)/fuzz/corpus-results $(BUILD)/fuzz/seeds-results
