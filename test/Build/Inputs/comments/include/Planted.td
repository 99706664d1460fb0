def P : Pass<"p"> {
  let description = [{
    Tuned in March 2026 on the CI machine.
  }];
}
